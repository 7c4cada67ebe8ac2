// CP-ALS checkpoints (grain::cp::read_checkpoint), the file `grain cp-als --resume` reads. The
// first byte picks the read: even, the whole file (header, fit history, model, checksum); odd, the
// header and fit history only, which skip the checksum, so the fuzzer reaches the field checks
// behind it. A read either gives a checkpoint or raises grain::Error; a whole one read must hold
// a model of its header's shape, which checkpoint_model turns into a Ktensor.
#include <cstdint>
#include <exception>
#include <string>

#include "fuzz_util.hpp"
#include "grain/core/error.hpp"
#include "grain/cp/checkpoint.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size < 1) return 0;
  const bool header_only = data[0] & 1;
  const std::string path = grain_fuzz::scratch_dir() + "/input.ckpt";
  grain_fuzz::write_file(path, data + 1, size - 1);
  grain::cp::CpAlsCheckpoint c;
  try {
    c = grain::cp::read_checkpoint(path, header_only);
  } catch (const std::exception&) {
    return 0;  // grain::Error: the expected outcome of a damaged file
  }
  if (c.fits.size() != static_cast<std::size_t>(c.iteration) || c.rank < 1) __builtin_trap();
  if (!header_only) {
    if (c.lambda.size() != static_cast<std::size_t>(c.rank) || c.factors.size() != c.dims.size()) __builtin_trap();
    const auto K = grain::cp::checkpoint_model<double, grain::HostSpace>(c);
    if (K.rank() != c.rank || K.ndims() != static_cast<int>(c.dims.size())) __builtin_trap();
  }
  return 0;
}
