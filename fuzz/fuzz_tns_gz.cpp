// .tns.gz through the file reader (grain::read_sparse on a file named *.tns.gz: the mapped file
// inflated member by member, then parsed). The first byte picks what the file holds, so that the
// fuzzer reaches the text parser through valid gzip as well as zlib's error paths (zlib itself
// is not instrumented, so raw bytes alone rarely make a stream):
//   0: the rest, as it is;
//   1: the rest, gzip-compressed;
//   2: the rest split in two, each half its own gzip member, concatenated;
//   3: the rest gzip-compressed, with its last (second byte % 24) + 1 bytes cut off;
//   4: the rest gzip-compressed, one byte flipped (second byte picks it);
//   5: the rest's first half gzip-compressed, its second half appended as is.
// A read either gives a tensor or raises grain::Error; anything else is a finding.
#include <zlib.h>

#include <cstdint>
#include <exception>
#include <string>
#include <vector>

#include "fuzz_util.hpp"
#include "grain/core/error.hpp"
#include "grain/sparse/io.hpp"

namespace {

std::vector<unsigned char> gzip(const std::uint8_t* p, std::size_t n) {
  z_stream z{};
  // A small window and little state: inputs are at most a few KiB, and zlib clears its state per stream.
  if (deflateInit2(&z, 6, Z_DEFLATED, 16 + 10, 1, Z_DEFAULT_STRATEGY) != Z_OK) __builtin_trap();
  std::vector<unsigned char> out(deflateBound(&z, static_cast<uLong>(n)) + 32);
  z.next_in = const_cast<Bytef*>(p);
  z.avail_in = static_cast<uInt>(n);
  z.next_out = out.data();
  z.avail_out = static_cast<uInt>(out.size());
  if (deflate(&z, Z_FINISH) != Z_STREAM_END) __builtin_trap();
  out.resize(z.total_out);
  deflateEnd(&z);
  return out;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size < 2) return 0;
  const unsigned mode = data[0] % 6, arg = data[1];
  const std::uint8_t* rest = data + 2;
  const std::size_t n = size - 2;
  std::vector<unsigned char> file;
  switch (mode) {
    case 0: file.assign(rest, rest + n); break;
    case 1: file = gzip(rest, n); break;
    case 2: {
      file = gzip(rest, n / 2);
      const std::vector<unsigned char> second = gzip(rest + n / 2, n - n / 2);
      file.insert(file.end(), second.begin(), second.end());
      break;
    }
    case 3: {
      file = gzip(rest, n);
      file.resize(file.size() - std::min<std::size_t>(file.size(), arg % 24 + 1));
      break;
    }
    case 4:
      file = gzip(rest, n);
      file[(arg * 7919u) % file.size()] ^= static_cast<unsigned char>(1u << (arg % 8));
      break;
    default:
      file = gzip(rest, n / 2);
      file.insert(file.end(), rest + n / 2, rest + n);
      break;
  }
  const std::string path = grain_fuzz::scratch_dir() + "/input.tns.gz";
  grain_fuzz::write_file(path, file.data(), file.size());
  try {
    (void)grain::read_sparse<double>(path);
  } catch (const std::exception&) {
    // grain::Error: the expected outcome of a damaged archive or malformed text
  }
  return 0;
}
