// Ktensor text files: PREFIX_lambda.txt and PREFIX_mode<m>.txt, one factor row per line.
#include <cerrno>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <sstream>
#include <string>

#include "grain/cp/ktensor.hpp"

namespace grain::cp {
namespace {

// Writes a rows x cols matrix, one row per line; with `ids`, each line starts with ids[i] + 1.
template <class T>
void write_rows(const std::string& path, const T* data, index_type rows, index_type cols,
                const index_type* ids = nullptr) {
  std::FILE* f = std::fopen(path.c_str(), "wb");
  if (!f) grain::impl::throw_error(path, ": cannot create (", std::strerror(errno), ")");
  std::string line;
  char buf[64];
  for (index_type i = 0; i < rows; ++i) {
    line.clear();
    if (ids) line.append(buf, std::to_chars(buf, buf + sizeof(buf), ids[i] + 1).ptr);
    for (index_type c = 0; c < cols; ++c) {
      if (c || ids) line += ' ';
      line.append(buf, std::to_chars(buf, buf + sizeof(buf), data[i * cols + c]).ptr);
    }
    line += '\n';
    if (std::fwrite(line.data(), 1, line.size(), f) != line.size()) {
      std::fclose(f);
      grain::impl::throw_error(path, ": write failed");
    }
  }
  if (std::fclose(f) != 0) grain::impl::throw_error(path, ": write failed");
}

// Reads a rows x cols text matrix (whitespace separated; blank and # lines skipped).
template <class T>
void read_rows(const std::string& path, T* data, index_type rows, index_type cols) {
  std::ifstream f(path);  // factor files are small next to the tensor: a stream is fine here
  if (!f) grain::impl::throw_error(path, ": cannot open (", std::strerror(errno), ")");
  std::string line;
  index_type i = 0, lineno = 0;
  while (std::getline(f, line)) {
    ++lineno;
    const char* p = line.data();
    const char* end = p + line.size();
    while (p < end && std::isspace(static_cast<unsigned char>(*p))) ++p;
    if (p == end || *p == '#') continue;
    if (i >= rows)
      grain::impl::throw_error(path, ":", lineno, ": more than the expected ", rows, " rows");
    for (index_type c = 0; c < cols; ++c) {
      while (p < end && std::isspace(static_cast<unsigned char>(*p))) ++p;
      const char* tok = p;
      while (p < end && !std::isspace(static_cast<unsigned char>(*p))) ++p;
      double v = 0;
      const auto r = std::from_chars(tok, p, v);
      if (tok == p)
        grain::impl::throw_error(path, ":", lineno, ": expected ", cols, " values, found ", c);
      // Finite in T, too: a double beyond float's range would become an infinite factor entry.
      const bool number = r.ec == std::errc() && r.ptr == p && std::isfinite(v);
      const T tv = static_cast<T>(v);
      if (!number || !std::isfinite(tv))
        grain::impl::throw_error(path, ":", lineno, ":", tok - line.data() + 1, ": '", std::string(tok, p),
                          "' is not a finite number", number ? " in float" : "");
      data[i * cols + c] = tv;
    }
    while (p < end && std::isspace(static_cast<unsigned char>(*p))) ++p;
    if (p != end)
      grain::impl::throw_error(path, ":", lineno, ":", p - line.data() + 1, ": more than ", cols, " values");
    ++i;
  }
  if (i != rows) grain::impl::throw_error(path, ": ", i, " rows, expected ", rows);
}

// The data rows of a text matrix (blank and # lines skipped) and the values on the first one.
struct TextShape {
  index_type rows = 0, cols = 0;
};
TextShape text_shape(const std::string& path) {
  std::ifstream f(path);
  if (!f) grain::impl::throw_error(path, ": cannot open (", std::strerror(errno), ")");
  TextShape s;
  std::string line;
  while (std::getline(f, line)) {
    std::istringstream in(line);
    std::string tok;
    if (!(in >> tok) || tok[0] == '#') continue;
    if (s.rows++ == 0)
      do ++s.cols;
      while (in >> tok);
  }
  return s;
}

bool exists(const std::string& path) { return std::ifstream(path).good(); }

}  // namespace

template <class T>
void write_ktensor(const std::string& prefix, const Ktensor<T, HostSpace>& K) {
  write_rows(prefix + "_lambda.txt", K.lambda.data(), K.rank(), 1);
  for (int m = 0; m < K.ndims(); ++m)
    write_rows(prefix + "_mode" + std::to_string(m + 1) + ".txt", K.factors[m].data(), K.dim(m), K.rank());
}

template <class T>
void write_ktensor(const std::string& prefix, const Ktensor<T, HostSpace>& K,
                   const std::vector<std::vector<index_type>>& original) {
  if (original.size() != static_cast<std::size_t>(K.ndims()))
    grain::impl::throw_error("write_ktensor: ", original.size(), " index maps for a ", K.ndims(), "-way Ktensor");
  for (int m = 0; m < K.ndims(); ++m)
    if (static_cast<index_type>(original[m].size()) != K.dim(m))
      grain::impl::throw_error("write_ktensor: mode ", m + 1, "'s index map has ", original[m].size(),
                               " entries for ", K.dim(m), " rows");
  write_rows(prefix + "_lambda.txt", K.lambda.data(), K.rank(), 1);
  for (int m = 0; m < K.ndims(); ++m)
    write_rows(prefix + "_mode" + std::to_string(m + 1) + ".txt", K.factors[m].data(), K.dim(m), K.rank(),
               original[m].data());
}

template <class T>
Ktensor<T, HostSpace> read_ktensor(const std::string& prefix, const std::vector<index_type>& dims,
                                   int rank) {
  Ktensor<T, HostSpace> K(dims, rank);
  const std::string lp = prefix + "_lambda.txt";
  if (std::ifstream(lp).good())
    read_rows(lp, K.lambda.data(), rank, 1);
  else
    deep_copy(K.lambda, T(1));
  for (int m = 0; m < K.ndims(); ++m)
    read_rows(prefix + "_mode" + std::to_string(m + 1) + ".txt", K.factors[m].data(), K.dim(m), rank);
  return K;
}

template <class T>
Ktensor<T, HostSpace> read_ktensor(const std::string& prefix) {
  const std::string lp = prefix + "_lambda.txt", first = prefix + "_mode1.txt";
  const TextShape f1 = text_shape(first);
  if (f1.rows == 0) grain::impl::throw_error(first, ": no rows");
  int rank = static_cast<int>(f1.cols);
  if (exists(lp)) {
    const TextShape l = text_shape(lp);
    if (l.rows == 0) grain::impl::throw_error(lp, ": no weights");
    rank = static_cast<int>(l.rows);
  }
  std::vector<index_type> dims;
  for (int m = 1; m <= kMaxSparseModes; ++m) {
    const std::string path = prefix + "_mode" + std::to_string(m) + ".txt";
    if (m > 1 && !exists(path)) break;
    const TextShape s = text_shape(path);
    if (s.cols == rank + 1)
      grain::impl::throw_error(path, ": ", s.cols, " values per row for ", rank, " weights: the factors of a --compact "
                               "run (each row's original index first), which this reader does not take");
    // Checked before the Ktensor is allocated: rank x rows comes from the files.
    if (s.cols != rank)
      grain::impl::throw_error(path, ": ", s.cols, " values on its first row, expected the rank ", rank,
                               exists(lp) ? " (the lines of " + lp + ")" : std::string());
    dims.push_back(s.rows);
  }
  if (exists(prefix + "_mode" + std::to_string(kMaxSparseModes + 1) + ".txt"))
    grain::impl::throw_error(prefix, ": more than ", kMaxSparseModes, " mode files");
  return read_ktensor<T>(prefix, dims, rank);
}

template void write_ktensor<float>(const std::string&, const Ktensor<float, HostSpace>&);
template void write_ktensor<double>(const std::string&, const Ktensor<double, HostSpace>&);
template void write_ktensor<float>(const std::string&, const Ktensor<float, HostSpace>&,
                                   const std::vector<std::vector<index_type>>&);
template void write_ktensor<double>(const std::string&, const Ktensor<double, HostSpace>&,
                                    const std::vector<std::vector<index_type>>&);
template Ktensor<float, HostSpace> read_ktensor<float>(const std::string&, const std::vector<index_type>&, int);
template Ktensor<double, HostSpace> read_ktensor<double>(const std::string&, const std::vector<index_type>&, int);
template Ktensor<float, HostSpace> read_ktensor<float>(const std::string&);
template Ktensor<double, HostSpace> read_ktensor<double>(const std::string&);

}  // namespace grain::cp
