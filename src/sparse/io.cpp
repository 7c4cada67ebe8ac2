// .tns text and the binary form: reading (memory map, parallel from_chars parse) and writing.
#include "grain/sparse/io.hpp"

#include "grain/core/progress.hpp"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>

#include <algorithm>
#include <cerrno>
#include <charconv>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstddef>
#include <cstring>
#include <limits>
#include <memory>
#include <string>
#include <type_traits>
#include <vector>

#if defined(GRAIN_ENABLE_OPENMP)
#include <omp.h>
#endif

namespace grain {
namespace {

bool ends_with(const std::string& s, const char* suffix) {
  const std::size_t n = std::strlen(suffix);
  return s.size() >= n && s.compare(s.size() - n, n, suffix) == 0;
}

int max_threads(int requested) {
#if defined(GRAIN_ENABLE_OPENMP)
  return requested > 0 ? requested : omp_get_max_threads();
#else
  (void)requested;
  return 1;
#endif
}

// The text of a file: a read-only memory map, or a decompressed buffer for .gz. A reader of one
// part passes whole = false and advises only its range, so the kernel reads ahead no other part.
class FileText {
 public:
  explicit FileText(const std::string& path, bool whole = true) : path_(path) {
    if (ends_with(path, ".gz")) {
      read_gzip();
      return;
    }
    fd_ = ::open(path.c_str(), O_RDONLY);
    if (fd_ < 0) impl::throw_error(path, ": cannot open (", std::strerror(errno), ")");
    struct stat st {};
    if (::fstat(fd_, &st) != 0) impl::throw_error(path, ": cannot stat (", std::strerror(errno), ")");
    size_ = static_cast<std::size_t>(st.st_size);
    if (size_ == 0) return;
    void* p = ::mmap(nullptr, size_, PROT_READ, MAP_PRIVATE, fd_, 0);
    if (p == MAP_FAILED) impl::throw_error(path, ": cannot memory-map (", std::strerror(errno), ")");
    if (whole) ::madvise(p, size_, MADV_SEQUENTIAL | MADV_WILLNEED);
    map_ = static_cast<const char*>(p);
  }
  ~FileText() {
    if (map_) ::munmap(const_cast<char*>(map_), size_);
    if (fd_ >= 0) ::close(fd_);
  }
  FileText(const FileText&) = delete;
  FileText& operator=(const FileText&) = delete;
  const char* data() const { return map_ ? map_ : buffer_.data(); }
  std::size_t size() const { return map_ ? size_ : buffer_.size(); }
  // Asks the kernel to read bytes [lo, hi) of the map ahead (madvise needs a page-aligned start).
  void advise(std::size_t lo, std::size_t hi) const {
    if (!map_ || lo >= hi) return;
    const std::size_t page = static_cast<std::size_t>(::sysconf(_SC_PAGESIZE));
    const std::size_t start = lo / page * page;
    ::madvise(const_cast<char*>(map_) + start, hi - start, MADV_SEQUENTIAL);
    ::madvise(const_cast<char*>(map_) + start, hi - start, MADV_WILLNEED);
  }

 private:
  // Inflates every gzip member of the file (concatenated members are one stream, as gzip reads
  // them). A member cut short, a CRC or length that does not match, or bytes after the last
  // member that are not another member are errors naming the file: a partial download must not
  // read as a smaller tensor.
  void read_gzip() {
    // The compressed bytes through a read-only map: no copy of them, whatever the file's size.
    struct Mapped {
      int fd = -1;
      void* p = nullptr;
      std::size_t n = 0;
      ~Mapped() {
        if (p) ::munmap(p, n);
        if (fd >= 0) ::close(fd);
      }
    } m;
    m.fd = ::open(path_.c_str(), O_RDONLY);
    if (m.fd < 0) impl::throw_error(path_, ": cannot open (", std::strerror(errno), ")");
    struct stat st {};
    if (::fstat(m.fd, &st) != 0) impl::throw_error(path_, ": cannot stat (", std::strerror(errno), ")");
    m.n = static_cast<std::size_t>(st.st_size);
    if (m.n > 0) {
      m.p = ::mmap(nullptr, m.n, PROT_READ, MAP_PRIVATE, m.fd, 0);
      if (m.p == MAP_FAILED) {
        m.p = nullptr;
        impl::throw_error(path_, ": cannot memory-map (", std::strerror(errno), ")");
      }
      ::madvise(m.p, m.n, MADV_SEQUENTIAL | MADV_WILLNEED);
    }
    if (m.n == 0) impl::throw_error(path_, ": empty file (not a gzip stream)");
    const unsigned char* const src = static_cast<const unsigned char*>(m.p);
    const std::size_t n = m.n;
    Progress progress(path_ + ": decompressing", static_cast<double>(n), "bytes");
    z_stream z{};
    if (inflateInit2(&z, 16 + MAX_WBITS) != Z_OK) impl::throw_error(path_, ": zlib cannot start");
    struct End {
      z_stream* z;
      ~End() { inflateEnd(z); }
    } end{&z};
    z.next_in = const_cast<Bytef*>(src);
    std::size_t used = 0;
    // Room for text about four times the compressed size (FROSTT's ratio), doubled when full: a
    // small file costs a small buffer.
    buffer_.resize(std::max<std::size_t>(std::size_t(1) << 16, n * 4));
    for (;;) {
      // zlib counts in 32-bit units: feed and drain at most 1 GiB at a time.
      const std::size_t in_left = n - static_cast<std::size_t>(z.next_in - src);
      z.avail_in = static_cast<uInt>(std::min<std::size_t>(in_left, std::size_t(1) << 30));
      if (used == buffer_.size()) buffer_.resize(buffer_.size() * 2);
      z.next_out = reinterpret_cast<Bytef*>(buffer_.data() + used);
      z.avail_out = static_cast<uInt>(std::min<std::size_t>(buffer_.size() - used, std::size_t(1) << 30));
      const uInt out_before = z.avail_out;
      const int ret = inflate(&z, Z_NO_FLUSH);
      used += out_before - z.avail_out;
      progress.update(static_cast<std::uint64_t>(z.next_in - src));
      if (ret == Z_STREAM_END) {
        const std::size_t rest = n - static_cast<std::size_t>(z.next_in - src);
        if (rest == 0) break;
        if (rest < 2 || z.next_in[0] != 0x1f || z.next_in[1] != 0x8b)
          impl::throw_error(path_, ": ", rest, " bytes of trailing data after the gzip stream (at byte ",
                            n - rest, ")");
        if (inflateReset(&z) != Z_OK) impl::throw_error(path_, ": zlib cannot restart");
        continue;
      }
      if (ret == Z_DATA_ERROR)
        impl::throw_error(path_, ": corrupt gzip data (", z.msg ? z.msg : "invalid data", ")");
      if (ret == Z_MEM_ERROR) impl::throw_error(path_, ": out of memory while decompressing");
      if (ret == Z_BUF_ERROR && in_left == 0)
        impl::throw_error(path_, ": truncated gzip file (the stream ends without its trailer after ", n,
                          " bytes; a partial download?)");
      if (ret != Z_OK && ret != Z_BUF_ERROR)
        impl::throw_error(path_, ": corrupt gzip data (zlib error ", ret, ")");
    }
    buffer_.resize(used);
  }
  std::string path_;
  int fd_ = -1;
  const char* map_ = nullptr;
  std::size_t size_ = 0;
  std::vector<char> buffer_;
};

inline bool is_space(char c) { return c == ' ' || c == '\t' || c == '\r' || c == '\v' || c == '\f'; }

struct ParseError {
  bool set = false;
  std::int64_t line = 0;  // local to the chunk, 1-based
  std::int64_t column = 0;
  std::string message;
};

template <class T>
struct Chunk {
  Chunk(const char* b, const char* e) : begin(b), end(e) {}
  const char* begin;
  const char* end;
  std::int64_t lines = 0;  // newline-terminated lines in the chunk (the last may lack one)
  std::vector<subscript_type> subs;
  std::vector<T> values;
  std::vector<std::int64_t> max_index;
  ParseError error;
};

// Returns the number of fields on the first data line (0 if none), and that line's number.
int count_first_fields(const char* p, const char* end, std::int64_t& line_no, std::size_t& line_bytes) {
  line_no = 0;
  line_bytes = 0;
  while (p < end) {
    ++line_no;
    const char* eol = static_cast<const char*>(std::memchr(p, '\n', end - p));
    if (!eol) eol = end;
    const char* q = p;
    while (q < eol && is_space(*q)) ++q;
    if (q < eol && *q != '#') {
      line_bytes = static_cast<std::size_t>(eol - p) + 1;
      int fields = 0;
      while (q < eol) {
        ++fields;
        while (q < eol && !is_space(*q)) ++q;
        while (q < eol && is_space(*q)) ++q;
      }
      return fields;
    }
    p = eol + 1;
  }
  return 0;
}

template <class T>
void parse_chunk(Chunk<T>& c, int nmodes, const std::vector<index_type>& dims, std::size_t line_bytes) {
  c.max_index.assign(nmodes, 0);
  // Reserve from the first data line's length: one allocation instead of a doubling sequence.
  const std::size_t expect = static_cast<std::size_t>(c.end - c.begin) / std::max<std::size_t>(line_bytes, 4) + 16;
  c.values.reserve(expect + expect / 8);
  c.subs.reserve((expect + expect / 8) * nmodes);
  const char* p = c.begin;
  std::int64_t line = 0;
  const char* eol = nullptr;
  // Reports an error; a wrong number of fields on the line takes precedence (it explains the
  // others: a value read where an index was expected, say). Only runs on the error path.
  auto fail = [&](const char* at, const char* line_begin, std::string msg) {
    int fields = 0;
    const char* extra = nullptr;
    for (const char* q = line_begin; q < eol;) {
      while (q < eol && is_space(*q)) ++q;
      if (q == eol) break;
      if (++fields == nmodes + 2) extra = q;
      while (q < eol && !is_space(*q)) ++q;
    }
    if (fields < nmodes + 1) {
      at = eol;
      while (at > line_begin && is_space(at[-1])) --at;
      msg = "expected " + std::to_string(nmodes + 1) + " fields (" + std::to_string(nmodes) +
            " indices and a value), found " + std::to_string(fields);
    } else if (fields > nmodes + 1) {
      at = extra;
      msg = "more than " + std::to_string(nmodes + 1) + " fields (" + std::to_string(nmodes) +
            " indices and a value expected)";
    }
    c.error.set = true;
    c.error.line = line;
    c.error.column = at - line_begin + 1;
    c.error.message = std::move(msg);
  };
  subscript_type coord[kMaxSparseModes];
  while (p < c.end) {
    ++line;
    eol = static_cast<const char*>(std::memchr(p, '\n', c.end - p));
    if (!eol) eol = c.end;
    const char* line_begin = p;
    const char* q = p;
    while (q < eol && is_space(*q)) ++q;
    if (q == eol || *q == '#') {
      p = eol + 1;
      continue;
    }
    for (int f = 0; f <= nmodes; ++f) {
      while (q < eol && is_space(*q)) ++q;
      if (q == eol) {
        fail(q, line_begin, "expected " + std::to_string(nmodes + 1) + " fields (" +
                                std::to_string(nmodes) + " indices and a value), found " +
                                std::to_string(f));
        return;
      }
      const char* tok = q;
      while (q < eol && !is_space(*q)) ++q;
      if (f < nmodes) {
        long long v = 0;
        const auto r = std::from_chars(tok, q, v);
        if (r.ec == std::errc::result_out_of_range) {
          fail(tok, line_begin, "index '" + std::string(tok, q) + "' of mode " +
                                    std::to_string(f + 1) + " is too large");
          return;
        }
        if (r.ec != std::errc() || r.ptr != q) {
          fail(tok, line_begin, "index '" + std::string(tok, q) + "' of mode " +
                                    std::to_string(f + 1) + " is not an integer");
          return;
        }
        if (v < 1) {
          fail(tok, line_begin, "index " + std::to_string(v) + " of mode " + std::to_string(f + 1) +
                                    " must be at least 1 (.tns indices are 1-based)");
          return;
        }
        if (!dims.empty() && v > dims[f]) {
          fail(tok, line_begin, "index " + std::to_string(v) + " of mode " + std::to_string(f + 1) +
                                    " exceeds the given dimension " + std::to_string(dims[f]));
          return;
        }
        if (v > static_cast<long long>(UINT32_MAX)) {
          fail(tok, line_begin, "index " + std::to_string(v) + " of mode " + std::to_string(f + 1) +
                                    " exceeds grain's limit of 2^32 - 1");
          return;
        }
        coord[f] = static_cast<subscript_type>(v - 1);
        if (v > c.max_index[f]) c.max_index[f] = v;
      } else {
        double v = 0;
        const auto r = std::from_chars(tok, q, v);
        if (r.ec == std::errc::result_out_of_range) {
          fail(tok, line_begin, "value '" + std::string(tok, q) + "' is out of range");
          return;
        }
        if (r.ec != std::errc() || r.ptr != q) {
          fail(tok, line_begin, "value '" + std::string(tok, q) + "' is not a number");
          return;
        }
        const T tv = static_cast<T>(v);
        if (!std::isfinite(tv)) {
          fail(tok, line_begin, "value '" + std::string(tok, q) + "' is not finite" +
                                    (std::isfinite(v) ? " in float" : ""));
          return;
        }
        c.subs.insert(c.subs.end(), coord, coord + nmodes);
        c.values.push_back(tv);
      }
    }
    while (q < eol && is_space(*q)) ++q;
    if (q != eol) {
      fail(q, line_begin, "more than " + std::to_string(nmodes + 1) + " fields (" +
                              std::to_string(nmodes) + " indices and a value expected)");
      return;
    }
    p = eol + 1;
  }
  c.lines = line;
}

// Parses [text, text + size), a piece of the file text that starts at `file` (a part of the file,
// or all of it). Error lines count from `file`; the newlines before the piece are counted only on
// the error path, so a part's normal parse reads no byte outside it. A piece without nonzeros is an
// error, or a default-constructed tensor when `allow_empty` (a part may hold none).
template <class T>
SparseTensor<T, HostSpace> parse_text(const char* file, const char* text, std::size_t size,
                                      const std::string& name, const TnsReadOptions& opts,
                                      bool allow_empty) {
  const char* end = text + size;
  auto lines_before = [&] { return static_cast<std::int64_t>(std::count(file, text, '\n')); };
  std::int64_t first_line = 0;
  std::size_t line_bytes = 0;
  const int fields = count_first_fields(text, end, first_line, line_bytes);
  if (fields == 0) {
    if (allow_empty) return SparseTensor<T, HostSpace>();
    impl::throw_error(name, ": empty file (no nonzeros; a .tns line holds N indices and a value)");
  }
  // A later part's first line is not the file's: given dimensions fix its mode count, so a line of
  // another width there is that line's error, as in the whole file's parse.
  const bool later_part = text != file && !opts.dims.empty();
  if (later_part) SparseTensor<T>::check_dims(opts.dims);
  const int nmodes = later_part ? static_cast<int>(opts.dims.size()) : fields - 1;
  if (nmodes < 2 || nmodes > kMaxSparseModes)
    impl::throw_error(name, ":", lines_before() + first_line, ":1: found ", fields,
                      " fields; a .tns line has 3 to ", kMaxSparseModes + 1, " fields (2 to ",
                      kMaxSparseModes, " indices and a value)");
  if (!opts.dims.empty() && static_cast<int>(opts.dims.size()) != nmodes)
    impl::throw_error(name, ":", lines_before() + first_line, ":1: the file has ", nmodes,
                      " modes but ", opts.dims.size(), " dimensions were given");
  if (!opts.dims.empty()) SparseTensor<T>::check_dims(opts.dims);

  // Split at line boundaries into about 4 MiB pieces, at most a few per thread.
  const int threads = max_threads(opts.threads);
  const std::size_t min_piece = std::size_t(1) << 22;
  std::size_t pieces = std::min<std::size_t>(static_cast<std::size_t>(threads) * 4,
                                             size / min_piece + 1);
  std::vector<Chunk<T>> chunks;
  const char* b = text;
  for (std::size_t k = 0; k < pieces && b < end; ++k) {
    const char* e = k + 1 == pieces ? end : text + size * (k + 1) / pieces;
    if (e < b) e = b;
    if (e < end) {
      const char* nl = static_cast<const char*>(std::memchr(e, '\n', end - e));
      e = nl ? nl + 1 : end;
    }
    chunks.emplace_back(b, e);
    b = e;
  }
  const int nchunks = static_cast<int>(chunks.size());
  Progress progress(name + ": parsing", static_cast<double>(size), "bytes");
#if defined(GRAIN_ENABLE_OPENMP)
#pragma omp parallel for schedule(dynamic, 1) num_threads(threads) if (nchunks > 1)
#endif
  for (int k = 0; k < nchunks; ++k) {
    try {
      parse_chunk(chunks[k], nmodes, opts.dims, line_bytes);
      progress.add(static_cast<std::uint64_t>(chunks[k].end - chunks[k].begin));
    } catch (const std::exception& e) {  // bad_alloc: report, do not terminate
      chunks[k].error.set = true;
      chunks[k].error.message = e.what();
    }
  }
  // The first error in file order, with its line number in the whole file.
  std::int64_t line_offset = 0;
  for (int k = 0; k < nchunks; ++k) {
    if (chunks[k].error.set)
      impl::throw_error(name, ":", lines_before() + line_offset + chunks[k].error.line, ":",
                        chunks[k].error.column, ": ", chunks[k].error.message);
    line_offset += chunks[k].lines;  // a chunk other than the last ends with its newline
  }
  std::vector<index_type> dims = opts.dims;
  if (dims.empty()) {
    dims.assign(nmodes, 1);
    for (const auto& c : chunks)
      for (int m = 0; m < nmodes; ++m) dims[m] = std::max<index_type>(dims[m], c.max_index[m]);
  }
  std::vector<index_type> offset(nchunks + 1, 0);
  for (int k = 0; k < nchunks; ++k)
    offset[k + 1] = offset[k] + static_cast<index_type>(chunks[k].values.size());
  if (offset[nchunks] == 0) {
    if (allow_empty) return SparseTensor<T, HostSpace>();
    impl::throw_error(name, ": empty file (no nonzeros)");
  }
  SparseTensor<T, HostSpace> X(dims, offset[nchunks]);
  subscript_type* subs = X.subscripts().data();
  T* vals = X.values().data();
#if defined(GRAIN_ENABLE_OPENMP)
#pragma omp parallel for schedule(dynamic, 1) num_threads(threads) if (nchunks > 1)
#endif
  for (int k = 0; k < nchunks; ++k) {
    std::copy(chunks[k].subs.begin(), chunks[k].subs.end(), subs + offset[k] * nmodes);
    std::copy(chunks[k].values.begin(), chunks[k].values.end(), vals + offset[k]);
  }
  return X;
}

}  // namespace

template <class T>
SparseTensor<T, HostSpace> parse_tns(const char* text, std::size_t size, const std::string& name,
                                     const TnsReadOptions& opts) {
  return parse_text<T>(text, text, size, name, opts, false);
}

template <class T>
SparseTensor<T, HostSpace> read_tns(const std::string& path, const TnsReadOptions& opts,
                                    TnsReadStats* stats) {
  const auto t0 = std::chrono::steady_clock::now();
  FileText text(path);
  auto X = parse_tns<T>(text.data(), text.size(), path, opts);
  if (stats) {
    stats->bytes = static_cast<double>(text.size());
    stats->seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  }
  return X;
}

// ---- writing .tns ----------------------------------------------------------------------------------
template <class T>
void write_tns(const std::string& path, const SparseTensor<T, HostSpace>& X) {
  const int N = X.ndims();
  const index_type nnz = X.nnz();
  const subscript_type* subs = X.subscripts().data();
  const T* vals = X.values().data();
  const index_type piece = 1 << 16;
  const index_type npieces = (nnz + piece - 1) / piece;
  std::vector<std::string> out(npieces);
  Progress progress(path + ": formatting", static_cast<double>(nnz), "nonzeros");
#if defined(GRAIN_ENABLE_OPENMP)
#pragma omp parallel for schedule(dynamic, 1) if (npieces > 1)
#endif
  for (index_type k = 0; k < npieces; ++k) {
    std::string& s = out[k];
    const index_type lo = k * piece, hi = std::min(nnz, lo + piece);
    s.resize(static_cast<std::size_t>(hi - lo) * (N * 11 + 26));
    char* p = s.data();
    char* const limit = s.data() + s.size();
    for (index_type j = lo; j < hi; ++j) {
      for (int m = 0; m < N; ++m) {
        p = std::to_chars(p, limit, static_cast<unsigned long long>(subs[j * N + m]) + 1).ptr;
        *p++ = ' ';
      }
      p = std::to_chars(p, limit, vals[j]).ptr;  // shortest text that reads back exactly
      *p++ = '\n';
    }
    s.resize(p - s.data());
    progress.add(static_cast<std::uint64_t>(hi - lo));
  }
  if (ends_with(path, ".gz")) {
    gzFile f = gzopen(path.c_str(), "wb6");
    if (!f) impl::throw_error(path, ": cannot create (", std::strerror(errno), ")");
    for (const auto& s : out)
      if (!s.empty() && gzwrite(f, s.data(), static_cast<unsigned>(s.size())) != static_cast<int>(s.size())) {
        gzclose(f);
        impl::throw_error(path, ": write failed");
      }
    if (gzclose(f) != Z_OK) impl::throw_error(path, ": write failed");
    return;
  }
  std::FILE* f = std::fopen(path.c_str(), "wb");
  if (!f) impl::throw_error(path, ": cannot create (", std::strerror(errno), ")");
  for (const auto& s : out)
    if (std::fwrite(s.data(), 1, s.size(), f) != s.size()) {
      std::fclose(f);
      impl::throw_error(path, ": write failed (", std::strerror(errno), ")");
    }
  if (std::fclose(f) != 0) impl::throw_error(path, ": write failed (", std::strerror(errno), ")");
}

// ---- the binary form ---------------------------------------------------------------------------------
namespace {

constexpr char kMagic[8] = {'G', 'R', 'A', 'I', 'N', 'S', 'P', 'T'};
constexpr std::uint32_t kVersion = 1;

struct BinaryHeader {
  char magic[8];
  std::uint32_t version;
  std::uint32_t nmodes;
  std::uint32_t value_bytes;
  std::uint32_t index_bytes;
  std::uint64_t nnz;
  std::uint64_t dims[kMaxSparseModes];
  std::uint64_t checksum;  // of the header (this field zero) and the payload
  std::uint64_t reserved[3];
};
static_assert(sizeof(BinaryHeader) == 128, "the binary header is 128 bytes");

// A fast 64-bit hash over 1 MiB blocks hashed in parallel, then combined in order.
std::uint64_t hash_block(const unsigned char* p, std::size_t n, std::uint64_t h) {
  const std::uint64_t k = 0x9E3779B97F4A7C15ull;
  std::size_t i = 0;
  for (; i + 8 <= n; i += 8) {
    std::uint64_t w;
    std::memcpy(&w, p + i, 8);
    h = (h ^ w) * k;
    h ^= h >> 31;
  }
  for (; i < n; ++i) h = (h ^ p[i]) * k;
  return h ^ (h >> 29);
}

std::uint64_t checksum(const void* data, std::size_t n, std::uint64_t h) {
  const std::size_t block = std::size_t(1) << 20;
  const std::int64_t nb = static_cast<std::int64_t>((n + block - 1) / block);
  std::vector<std::uint64_t> part(nb);
  const auto* p = static_cast<const unsigned char*>(data);
#if defined(GRAIN_ENABLE_OPENMP)
#pragma omp parallel for schedule(static) if (nb > 4)
#endif
  for (std::int64_t b = 0; b < nb; ++b)
    part[b] = hash_block(p + b * block, std::min(block, n - b * block), 0x243F6A8885A308D3ull + b);
  for (std::int64_t b = 0; b < nb; ++b) h = hash_block(reinterpret_cast<unsigned char*>(&part[b]), 8, h);
  return h;
}

template <class T>
std::uint64_t tensor_checksum(BinaryHeader hdr, const subscript_type* subs, const void* vals,
                              std::size_t value_bytes) {
  hdr.checksum = 0;
  std::uint64_t h = hash_block(reinterpret_cast<const unsigned char*>(&hdr), sizeof(hdr), 1);
  h = checksum(subs, hdr.nnz * hdr.nmodes * sizeof(subscript_type), h);
  return checksum(vals, hdr.nnz * value_bytes, h);
}

void write_all(std::FILE* f, const void* p, std::size_t n, const std::string& path) {
  if (n && std::fwrite(p, 1, n, f) != n) {
    std::fclose(f);
    impl::throw_error(path, ": write failed (", std::strerror(errno), ")");
  }
}

}  // namespace

bool impl::set_binary_checksum(unsigned char* image, std::size_t size) {
  BinaryHeader h;
  if (size < sizeof(h)) return false;
  std::memcpy(&h, image, sizeof(h));
  const double sbytes = double(h.nnz) * h.nmodes * sizeof(subscript_type), vbytes = double(h.nnz) * h.value_bytes;
  if (h.nmodes > kMaxSparseModes || sizeof(h) + sbytes + vbytes > double(size)) return false;
  const unsigned char* subs = image + sizeof(h);
  h.checksum = tensor_checksum<double>(h, reinterpret_cast<const subscript_type*>(subs), subs + std::size_t(sbytes),
                                       h.value_bytes);
  std::memcpy(image + offsetof(BinaryHeader, checksum), &h.checksum, sizeof(h.checksum));
  return true;
}

bool is_binary_sparse(const std::string& path) {
  std::FILE* f = std::fopen(path.c_str(), "rb");
  if (!f) return false;
  char m[8] = {};
  const bool ok = std::fread(m, 1, 8, f) == 8 && std::memcmp(m, kMagic, 8) == 0;
  std::fclose(f);
  return ok;
}

template <class T>
void write_binary(const std::string& path, const SparseTensor<T, HostSpace>& X) {
  BinaryHeader h{};
  std::memcpy(h.magic, kMagic, 8);
  h.version = kVersion;
  h.nmodes = static_cast<std::uint32_t>(X.ndims());
  h.value_bytes = sizeof(T);
  h.index_bytes = sizeof(subscript_type);
  h.nnz = static_cast<std::uint64_t>(X.nnz());
  for (int m = 0; m < X.ndims(); ++m) h.dims[m] = static_cast<std::uint64_t>(X.dim(m));
  h.checksum = tensor_checksum<T>(h, X.subscripts().data(), X.values().data(), sizeof(T));
  std::FILE* f = std::fopen(path.c_str(), "wb");
  if (!f) impl::throw_error(path, ": cannot create (", std::strerror(errno), ")");
  write_all(f, &h, sizeof(h), path);
  write_all(f, X.subscripts().data(), h.nnz * h.nmodes * sizeof(subscript_type), path);
  write_all(f, X.values().data(), h.nnz * sizeof(T), path);
  if (std::fclose(f) != 0) impl::throw_error(path, ": write failed (", std::strerror(errno), ")");
}

namespace {

// An open binary file: its checked header and dimensions. The header promises exactly the file's
// size, so a truncated or padded file is an error before any payload is read.
struct BinaryFile {
  // A member closes the file, so a constructor that throws after opening it still closes it.
  std::unique_ptr<std::FILE, int (*)(std::FILE*)> file{nullptr, &std::fclose};
  std::FILE* f = nullptr;
  BinaryHeader h{};
  std::vector<index_type> dims;

  explicit BinaryFile(const std::string& path) {
    file.reset(std::fopen(path.c_str(), "rb"));
    f = file.get();
    if (!f) impl::throw_error(path, ": cannot open (", std::strerror(errno), ")");
    std::fseek(f, 0, SEEK_END);
    const long long fsize = std::ftell(f);
    std::fseek(f, 0, SEEK_SET);
    if (fsize < static_cast<long long>(sizeof(h)) || std::fread(&h, sizeof(h), 1, f) != 1)
      impl::throw_error(path, ": truncated (", fsize, " bytes, shorter than the 128-byte header)");
    if (std::memcmp(h.magic, kMagic, 8) != 0)
      impl::throw_error(path, ": not a grain binary sparse tensor (bad magic bytes)");
    if (h.version != kVersion)
      impl::throw_error(path, ": format version ", h.version, ", this grain reads version ", kVersion);
    if (h.nmodes < 2 || h.nmodes > static_cast<std::uint32_t>(kMaxSparseModes) ||
        (h.value_bytes != 4 && h.value_bytes != 8) || h.index_bytes != sizeof(subscript_type) ||
        h.nnz > (std::uint64_t(1) << 50))
      impl::throw_error(path, ": corrupted header (modes ", h.nmodes, ", value bytes ", h.value_bytes,
                        ", index bytes ", h.index_bytes, ", nnz ", h.nnz, ")");
    const std::uint64_t expect =
        sizeof(h) + h.nnz * (h.nmodes * sizeof(subscript_type) + h.value_bytes);
    if (static_cast<std::uint64_t>(fsize) != expect)
      impl::throw_error(path, ": ", static_cast<std::uint64_t>(fsize) < expect ? "truncated" : "corrupted",
                        " (the header promises ", expect, " bytes, the file has ", fsize, ")");
    dims.resize(h.nmodes);
    for (std::uint32_t m = 0; m < h.nmodes; ++m) {
      if (h.dims[m] < 1 || h.dims[m] > UINT32_MAX)
        impl::throw_error(path, ": corrupted header (dimension ", h.dims[m], " of mode ", m + 1, ")");
      dims[m] = static_cast<index_type>(h.dims[m]);
    }
  }
};

// Every index of nonzeros [first, first + n) (subscripts `subs`) within the header's dimensions;
// errors number the nonzero in the whole file.
void check_binary_indices(const std::string& path, const BinaryHeader& h, const subscript_type* subs,
                          index_type first, index_type n) {
  for (index_type j = 0; j < n; ++j)
    for (std::uint32_t m = 0; m < h.nmodes; ++m)
      if (subs[j * h.nmodes + m] >= h.dims[m])
        impl::throw_error(path, ": corrupted (nonzero ", first + j, " has index ", subs[j * h.nmodes + m] + 1,
                          " beyond dimension ", h.dims[m], " of mode ", m + 1, ")");
}

// Converts n stored values of `value_bytes` bytes each to T.
template <class T>
void convert_values(const unsigned char* stored, std::uint32_t value_bytes, index_type n, T* out) {
  for (index_type j = 0; j < n; ++j) {
    if (value_bytes == 4) {
      float v;
      std::memcpy(&v, stored + 4 * j, 4);
      out[j] = static_cast<T>(v);
    } else {
      double v;
      std::memcpy(&v, stored + 8 * j, 8);
      out[j] = static_cast<T>(v);
    }
  }
}

}  // namespace

template <class T>
SparseTensor<T, HostSpace> read_binary(const std::string& path) {
  BinaryFile bf(path);
  const BinaryHeader& h = bf.h;
  const index_type nnz = static_cast<index_type>(h.nnz);
  typename SparseTensor<T>::subscripts_view subs(WithoutInitializing, "sparse_subscripts", nnz,
                                                 static_cast<index_type>(h.nmodes));
  typename SparseTensor<T>::values_view vals(WithoutInitializing, "sparse_values", nnz);
  const std::size_t sbytes = h.nnz * h.nmodes * sizeof(subscript_type);
  std::vector<unsigned char> other;
  void* vdst = vals.data();
  if (h.value_bytes != sizeof(T)) {
    other.resize(h.nnz * h.value_bytes);
    vdst = other.data();
  }
  if ((sbytes && std::fread(subs.data(), 1, sbytes, bf.f) != sbytes) ||
      (h.nnz && std::fread(vdst, 1, h.nnz * h.value_bytes, bf.f) != h.nnz * h.value_bytes))
    impl::throw_error(path, ": truncated (read failed)");
  if (tensor_checksum<T>(h, subs.data(), vdst, h.value_bytes) != h.checksum)
    impl::throw_error(path, ": corrupted (checksum mismatch)");
  check_binary_indices(path, h, subs.data(), 0, nnz);
  if (h.value_bytes != sizeof(T)) convert_values(other.data(), h.value_bytes, nnz, vals.data());
  return SparseTensor<T, HostSpace>(bf.dims, subs, vals);
}

template <class T>
SparseTensor<T, HostSpace> read_sparse(const std::string& path, const TnsReadOptions& opts,
                                       TnsReadStats* stats) {
  if (is_binary_sparse(path)) {
    const auto t0 = std::chrono::steady_clock::now();
    auto X = read_binary<T>(path);
    if (!opts.dims.empty() && opts.dims != X.dims())
      impl::throw_error(path, ": the file's dimensions ", dims_string(X.dims()),
                        " differ from the given ", dims_string(opts.dims));
    if (stats) {
      stats->bytes = 128.0 + static_cast<double>(X.bytes());
      stats->seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    }
    return X;
  }
  return read_tns<T>(path, opts, stats);
}

namespace {

void check_part(const std::string& path, int part, int parts) {
  if (parts < 1 || part < 0 || part >= parts)
    impl::throw_error(path, ": part ", part, " of ", parts,
                      " parts: parts must be at least 1 and part in [0, parts)");
}

// Byte floor(size * k / parts), without the overflow of size * k.
std::size_t split_point(std::size_t size, int k, int parts) {
  const std::size_t n = static_cast<std::size_t>(parts), kk = static_cast<std::size_t>(k);
  return size / n * kk + size % n * kk / n;
}

// Nonzeros split as evenly as possible, the first nnz % parts parts holding one more: only the
// header and the part's subscripts and values are read. The checksum covers the whole file, so a
// part cannot check it; every index of the part is checked against the header's dimensions.
template <class T>
SparseTensor<T, HostSpace> read_binary_part(const std::string& path, int part, int parts,
                                            const std::vector<index_type>& given) {
  BinaryFile bf(path);
  const BinaryHeader& h = bf.h;
  if (!given.empty() && given != bf.dims)
    impl::throw_error(path, ": the file's dimensions ", dims_string(bf.dims), " differ from the given ",
                      dims_string(given));
  const std::uint64_t nparts = static_cast<std::uint64_t>(parts), p = static_cast<std::uint64_t>(part);
  const std::uint64_t base = h.nnz / nparts, extra = h.nnz % nparts;
  const std::uint64_t first = base * p + std::min(p, extra);
  const index_type n = static_cast<index_type>(base + (p < extra ? 1 : 0));
  if (n == 0) return SparseTensor<T, HostSpace>();
  typename SparseTensor<T>::subscripts_view subs(WithoutInitializing, "sparse_subscripts", n,
                                                 static_cast<index_type>(h.nmodes));
  typename SparseTensor<T>::values_view vals(WithoutInitializing, "sparse_values", n);
  std::vector<unsigned char> other;
  void* vdst = vals.data();
  if (h.value_bytes != sizeof(T)) {
    other.resize(static_cast<std::size_t>(n) * h.value_bytes);
    vdst = other.data();
  }
  auto read_at = [&](std::uint64_t offset, void* dst, std::size_t bytes) {
    if (::fseeko(bf.f, static_cast<off_t>(offset), SEEK_SET) != 0 || std::fread(dst, 1, bytes, bf.f) != bytes)
      impl::throw_error(path, ": truncated (read failed)");
  };
  const std::uint64_t row = h.nmodes * sizeof(subscript_type);
  read_at(sizeof(h) + first * row, subs.data(), static_cast<std::size_t>(n * row));
  read_at(sizeof(h) + h.nnz * row + first * h.value_bytes, vdst, static_cast<std::size_t>(n) * h.value_bytes);
  check_binary_indices(path, h, subs.data(), static_cast<index_type>(first), n);
  if (h.value_bytes != sizeof(T)) convert_values(other.data(), h.value_bytes, n, vals.data());
  return SparseTensor<T, HostSpace>(bf.dims, subs, vals);
}

// A line belongs to the part in which its first byte lies: part p parses from the first line start
// at or after split_point(p) to the next part's start, touching only the bytes next to its ends.
template <class T>
SparseTensor<T, HostSpace> read_tns_part(const std::string& path, int part, int parts,
                                         const TnsReadOptions& opts, TnsReadStats* stats) {
  FileText text(path, false);
  const char* const data = text.data();
  const std::size_t size = text.size();
  auto line_start = [&](std::size_t b) -> std::size_t {
    if (b == 0 || b >= size) return std::min(b, size);
    if (data[b - 1] == '\n') return b;
    const void* nl = std::memchr(data + b, '\n', size - b);
    return nl ? static_cast<std::size_t>(static_cast<const char*>(nl) - data) + 1 : size;
  };
  const std::size_t lo = line_start(split_point(size, part, parts));
  const std::size_t hi = line_start(split_point(size, part + 1, parts));
  text.advise(lo, hi);
  auto X = parse_text<T>(data, data + lo, hi - lo, path, opts, true);
  if (stats) stats->bytes = static_cast<double>(hi - lo);
  return X;
}

}  // namespace

template <class T>
SparseTensor<T, HostSpace> read_sparse_part(const std::string& path, int part, int parts,
                                            const TnsReadOptions& opts, TnsReadStats* stats) {
  check_part(path, part, parts);
  if (parts == 1) return read_sparse<T>(path, opts, stats);
  const auto t0 = std::chrono::steady_clock::now();
  SparseTensor<T, HostSpace> X;
  if (is_binary_sparse(path)) {
    X = read_binary_part<T>(path, part, parts, opts.dims);
    if (stats) stats->bytes = 128.0 + static_cast<double>(X.bytes());
  } else {
    // A gzip stream has no entry points: a part would have to inflate everything before it.
    if (ends_with(path, ".gz"))
      impl::throw_error(path, ": a .gz file cannot be split into ", parts,
                        " parts (decompress it, or write the binary form)");
    X = read_tns_part<T>(path, part, parts, opts, stats);
  }
  if (stats) stats->seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  return X;
}

#define GRAIN_SPARSE_IO(T)                                                                          \
  template SparseTensor<T, HostSpace> read_tns<T>(const std::string&, const TnsReadOptions&,        \
                                                  TnsReadStats*);                                   \
  template SparseTensor<T, HostSpace> parse_tns<T>(const char*, std::size_t, const std::string&,    \
                                                   const TnsReadOptions&);                          \
  template void write_tns<T>(const std::string&, const SparseTensor<T, HostSpace>&);               \
  template void write_binary<T>(const std::string&, const SparseTensor<T, HostSpace>&);            \
  template SparseTensor<T, HostSpace> read_binary<T>(const std::string&);                          \
  template SparseTensor<T, HostSpace> read_sparse<T>(const std::string&, const TnsReadOptions&,     \
                                                     TnsReadStats*);                                \
  template SparseTensor<T, HostSpace> read_sparse_part<T>(const std::string&, int, int,             \
                                                          const TnsReadOptions&, TnsReadStats*);
GRAIN_SPARSE_IO(float)
GRAIN_SPARSE_IO(double)
#undef GRAIN_SPARSE_IO

}  // namespace grain
