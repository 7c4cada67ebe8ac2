// CP-ALS checkpoints (include/grain/cp/checkpoint.hpp): an atomic, checksummed binary file.
#include "grain/cp/checkpoint.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

namespace grain::cp {
namespace {

constexpr char kMagic[8] = {'G', 'R', 'A', 'I', 'N', 'C', 'K', 'P'};
constexpr std::size_t kNameBytes = 16;
// magic, version, N, R, value bytes, maxiters, iteration, tol, seed, nnz, fingerprint, MTTKRP name
constexpr std::size_t kFixedBytes = 8 + 6 * 4 + 4 * 8 + kNameBytes;
constexpr std::uint32_t kMaxRank = 1u << 20;

// A streaming 64-bit hash, a word at a time; bytes split across calls hash as if contiguous.
class Hash64 {
 public:
  explicit Hash64(std::uint64_t seed = 0x243F6A8885A308D3ull) : h_(seed) {}
  void add(const void* data, std::size_t n) {
    if (n == 0) return;  // data may then be null
    const auto* p = static_cast<const unsigned char*>(data);
    total_ += n;
    if (nt_ > 0) {  // complete the word a previous call began
      const std::size_t take = std::min(n, 8 - nt_);
      std::memcpy(tail_ + nt_, p, take);
      nt_ += take, p += take, n -= take;
      if (nt_ < 8) return;
      word(tail_);
      nt_ = 0;
    }
    for (; n >= 8; n -= 8, p += 8) word(p);
    std::memcpy(tail_, p, n);
    nt_ = n;
  }
  std::uint64_t value() const {
    Hash64 c = *this;
    unsigned char last[8] = {};
    std::memcpy(last, c.tail_, c.nt_);
    c.word(last);
    std::uint64_t h = c.h_ ^ c.total_;
    h = (h ^ (h >> 33)) * 0xFF51AFD7ED558CCDull;
    return h ^ (h >> 29);
  }

 private:
  void word(const unsigned char* p) {
    std::uint64_t w;
    std::memcpy(&w, p, 8);
    h_ = (h_ ^ w) * 0x9E3779B97F4A7C15ull;
    h_ ^= h_ >> 31;
  }
  std::uint64_t h_, total_ = 0;
  unsigned char tail_[8] = {};
  std::size_t nt_ = 0;
};

// The temporary file a write goes through, removed unless renamed into place.
struct TempFile {
  std::string path;
  std::FILE* f = nullptr;
  bool keep = false;
  ~TempFile() {
    if (f) std::fclose(f);
    if (!keep && !path.empty()) ::unlink(path.c_str());
  }
};

struct Writer {
  TempFile& tmp;
  const std::string& target;
  Hash64 hash;
  void put(const void* p, std::size_t n) {
    if (n && std::fwrite(p, 1, n, tmp.f) != n)
      grain::impl::throw_error(target, ": cannot write the checkpoint (", std::strerror(errno), ")");
    hash.add(p, n);
  }
  template <class V>
  void value(V v) {
    put(&v, sizeof(v));
  }
  void doubles(const std::vector<double>& v) { put(v.data(), v.size() * sizeof(double)); }
};

struct Reader {
  std::FILE* f;
  const std::string& path;
  Hash64 hash;
  void get(void* p, std::size_t n) {
    if (n && std::fread(p, 1, n, f) != n) grain::impl::throw_error(path, ": truncated checkpoint (read failed)");
    hash.add(p, n);
  }
  template <class V>
  V value() {
    V v;
    get(&v, sizeof(v));
    return v;
  }
  std::vector<double> doubles(std::size_t n) {
    std::vector<double> v(n);
    get(v.data(), n * sizeof(double));
    return v;
  }
};

std::string folder_of(const std::string& path) {
  const auto slash = path.rfind('/');
  return slash == std::string::npos ? "." : slash == 0 ? "/" : path.substr(0, slash);
}

bool all_finite(const std::vector<double>& v) {
  for (double x : v)
    if (!std::isfinite(x)) return false;
  return true;
}

}  // namespace

void write_checkpoint(const std::string& path, const CpAlsCheckpoint& c) {
  const std::size_t N = c.dims.size();
  if (N < 1 || N > static_cast<std::size_t>(kMaxSparseModes) || c.rank < 1 ||
      c.lambda.size() != static_cast<std::size_t>(c.rank) || c.factors.size() != N ||
      c.fits.size() != static_cast<std::size_t>(c.iteration) || (c.value_bytes != 4 && c.value_bytes != 8) ||
      c.mttkrp.size() >= kNameBytes)
    grain::impl::throw_error(path, ": an inconsistent checkpoint (modes ", N, ", rank ", c.rank, ", ",
                             c.lambda.size(), " weights, ", c.factors.size(), " factors, ", c.fits.size(),
                             " fits for ", c.iteration, " iterations)");
  for (std::size_t m = 0; m < N; ++m)
    if (c.factors[m].size() != static_cast<std::size_t>(c.dims[m]) * static_cast<std::size_t>(c.rank))
      grain::impl::throw_error(path, ": an inconsistent checkpoint (mode ", m + 1, "'s factor has ",
                               c.factors[m].size(), " values for ", c.dims[m], " rows of rank ", c.rank, ")");
  // A checkpoint is what a run falls back on: it never holds a broken model.
  bool finite = all_finite(c.lambda);
  for (const auto& f : c.factors) finite = finite && all_finite(f);
  if (!finite) grain::impl::throw_error(path, ": refusing to checkpoint a model with a NaN or infinity");

  // The temporary lies beside the target (rename(2) is atomic within one file system), named by
  // process and call so that concurrent writers never share one; created as open(2) creates files,
  // under the umask.
  static std::atomic<unsigned> calls{0};
  TempFile tmp;
  tmp.path = path + ".tmp." + std::to_string(::getpid()) + "." + std::to_string(calls++);
  const int fd = ::open(tmp.path.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
  if (fd < 0) {
    const std::string why = std::strerror(errno);
    tmp.path.clear();
    grain::impl::throw_error(path, ": cannot create a temporary file in ", folder_of(path), " (", why, ")");
  }
  tmp.f = ::fdopen(fd, "wb");
  if (!tmp.f) {
    ::close(fd);
    grain::impl::throw_error(path, ": cannot open the temporary file (", std::strerror(errno), ")");
  }
  Writer w{tmp, path, Hash64()};
  w.put(kMagic, 8);
  w.value<std::uint32_t>(kCheckpointVersion);
  w.value<std::uint32_t>(static_cast<std::uint32_t>(N));
  w.value<std::uint32_t>(static_cast<std::uint32_t>(c.rank));
  w.value<std::uint32_t>(static_cast<std::uint32_t>(c.value_bytes));
  w.value<std::int32_t>(c.maxiters);
  w.value<std::int32_t>(c.iteration);
  w.value<double>(c.tol);
  w.value<std::uint64_t>(c.seed);
  w.value<std::uint64_t>(static_cast<std::uint64_t>(c.nnz));
  w.value<std::uint64_t>(c.fingerprint);
  char name[kNameBytes] = {};
  std::memcpy(name, c.mttkrp.data(), c.mttkrp.size());
  w.put(name, kNameBytes);
  for (index_type d : c.dims) w.value<std::uint64_t>(static_cast<std::uint64_t>(d));
  w.doubles(c.fits);
  w.doubles(c.lambda);
  for (const auto& f : c.factors) w.doubles(f);
  const std::uint64_t sum = w.hash.value();
  if (std::fwrite(&sum, sizeof(sum), 1, tmp.f) != 1 || std::fflush(tmp.f) != 0 || ::fsync(fd) != 0)
    grain::impl::throw_error(path, ": cannot write the checkpoint (", std::strerror(errno), ")");
  const int rc = std::fclose(tmp.f);
  tmp.f = nullptr;
  if (rc != 0) grain::impl::throw_error(path, ": cannot write the checkpoint (", std::strerror(errno), ")");
  if (std::rename(tmp.path.c_str(), path.c_str()) != 0)
    grain::impl::throw_error(path, ": cannot rename the temporary checkpoint into place (", std::strerror(errno), ")");
  tmp.keep = true;
  // The rename itself reaches the disk when the folder is synced (best effort: some file systems
  // refuse to open a folder for this).
  const int dfd = ::open(folder_of(path).c_str(), O_RDONLY | O_DIRECTORY);
  if (dfd >= 0) {
    (void)::fsync(dfd);
    ::close(dfd);
  }
}

CpAlsCheckpoint read_checkpoint(const std::string& path, bool header_only) {
  std::FILE* f = std::fopen(path.c_str(), "rb");
  if (!f) grain::impl::throw_error(path, ": cannot open the checkpoint (", std::strerror(errno), ")");
  struct Closer {
    std::FILE* f;
    ~Closer() { std::fclose(f); }
  } closer{f};
  std::fseek(f, 0, SEEK_END);
  const long long fsize = std::ftell(f);
  std::fseek(f, 0, SEEK_SET);
  Reader r{f, path, Hash64()};
  char magic[8] = {};
  if (fsize < 8) grain::impl::throw_error(path, ": truncated checkpoint (", fsize, " bytes)");
  r.get(magic, 8);
  if (std::memcmp(magic, kMagic, 8) != 0)
    grain::impl::throw_error(path, ": not a grain CP-ALS checkpoint (bad magic bytes)");
  if (fsize < static_cast<long long>(kFixedBytes))
    grain::impl::throw_error(path, ": truncated checkpoint (", fsize, " bytes, shorter than the ", kFixedBytes,
                             "-byte header)");
  CpAlsCheckpoint c;
  c.version = r.value<std::uint32_t>();
  if (c.version != kCheckpointVersion)
    grain::impl::throw_error(path, ": checkpoint format version ", c.version, ", this grain reads version ",
                             kCheckpointVersion);
  const auto N = r.value<std::uint32_t>();
  const auto R = r.value<std::uint32_t>();
  const auto vb = r.value<std::uint32_t>();
  c.maxiters = r.value<std::int32_t>();
  c.iteration = r.value<std::int32_t>();
  c.tol = r.value<double>();
  c.seed = r.value<std::uint64_t>();
  const auto nnz = r.value<std::uint64_t>();
  c.fingerprint = r.value<std::uint64_t>();
  char name[kNameBytes];
  r.get(name, kNameBytes);
  if (N < 1 || N > static_cast<std::uint32_t>(kMaxSparseModes) || R < 1 || R > kMaxRank || (vb != 4 && vb != 8) ||
      c.iteration < 0 || c.maxiters < 1 || !(c.tol >= 0) || nnz > (std::uint64_t(1) << 50) ||
      name[kNameBytes - 1] != '\0')
    grain::impl::throw_error(path, ": corrupted checkpoint header (modes ", N, ", rank ", R, ", value bytes ", vb,
                             ", iteration ", c.iteration, ", maxiters ", c.maxiters, ")");
  c.rank = static_cast<int>(R);
  c.value_bytes = static_cast<int>(vb);
  c.nnz = static_cast<std::int64_t>(nnz);
  c.mttkrp = name;
  if (fsize < static_cast<long long>(kFixedBytes + 8 * N))
    grain::impl::throw_error(path, ": truncated checkpoint (", fsize, " bytes, shorter than its header)");
  std::uint64_t rows = 0;
  for (std::uint32_t m = 0; m < N; ++m) {
    const auto d = r.value<std::uint64_t>();
    if (d < 1 || d > UINT32_MAX)
      grain::impl::throw_error(path, ": corrupted checkpoint header (dimension ", d, " of mode ", m + 1, ")");
    c.dims.push_back(static_cast<index_type>(d));
    rows += d;
  }
  // At most 8 * 2^32 rows of at most 2^20 doubles: the size cannot overflow 64 bits.
  const std::uint64_t expect =
      kFixedBytes + 8 * (std::uint64_t(N) + std::uint64_t(c.iteration) + R + rows * R) + sizeof(std::uint64_t);
  if (static_cast<std::uint64_t>(fsize) != expect)
    grain::impl::throw_error(path, ": ", static_cast<std::uint64_t>(fsize) < expect ? "truncated" : "corrupted",
                             " checkpoint (its header promises ", expect, " bytes, the file has ", fsize, ")");
  c.fits = r.doubles(static_cast<std::size_t>(c.iteration));
  if (header_only) return c;
  c.lambda = r.doubles(R);
  for (std::uint32_t m = 0; m < N; ++m) c.factors.push_back(r.doubles(static_cast<std::size_t>(c.dims[m]) * R));
  const std::uint64_t sum = r.hash.value();
  std::uint64_t stored = 0;
  if (std::fread(&stored, sizeof(stored), 1, f) != 1) grain::impl::throw_error(path, ": truncated checkpoint");
  if (stored != sum) grain::impl::throw_error(path, ": corrupted checkpoint (checksum mismatch)");
  return c;
}

template <class T>
std::uint64_t tensor_fingerprint(const SparseTensor<T, HostSpace>& X) {
  Hash64 h(0x13198A2E03707344ull);
  const std::int64_t nnz = X.nnz();
  const int N = X.ndims();
  h.add(&nnz, sizeof(nnz));
  for (int m = 0; m < N; ++m) {
    const std::int64_t d = X.dim(m);
    h.add(&d, sizeof(d));
  }
  const std::int64_t samples = nnz < 4096 ? nnz : 4096;
  for (std::int64_t s = 0; s < samples; ++s) {
    const std::int64_t j = samples == nnz ? s : s * (nnz - 1) / (samples - 1);
    h.add(X.subscripts().data() + j * N, sizeof(subscript_type) * N);
    const double v = static_cast<double>(X.values().data()[j]);
    h.add(&v, sizeof(v));
  }
  return h.value();
}

void check_checkpoint_tensor(const CpAlsCheckpoint& c, const std::string& path, const std::vector<index_type>& dims,
                             std::int64_t nnz, std::uint64_t fingerprint, int rank, int value_bytes) {
  const auto shape = [](const std::vector<index_type>& d, std::int64_t n) {
    return dims_string(d) + " with " + std::to_string(n) + " nonzeros";
  };
  if (c.dims != dims || c.nnz != nnz)
    grain::impl::throw_error(path, ": the checkpoint is of a ", shape(c.dims, c.nnz), " tensor; this tensor is ",
                             shape(dims, nnz));
  if (c.fingerprint != fingerprint)
    grain::impl::throw_error(path, ": the checkpoint is of another tensor of the same shape (", shape(dims, nnz),
                             "): the tensors' fingerprints differ");
  if (c.rank != rank)
    grain::impl::throw_error(path, ": the checkpoint is of a rank-", c.rank, " run; this run asks for rank ", rank);
  if (c.value_bytes != value_bytes)
    grain::impl::throw_error(path, ": the checkpoint is of a ", c.value_bytes == 4 ? "float" : "double",
                             " run; this run is in ", value_bytes == 4 ? "float" : "double");
}

template std::uint64_t tensor_fingerprint<float>(const SparseTensor<float, HostSpace>&);
template std::uint64_t tensor_fingerprint<double>(const SparseTensor<double, HostSpace>&);

}  // namespace grain::cp
