// .tns text in memory (grain::parse_tns). Malformed text must raise grain::Error; a tensor that
// parses must parse again, to the same tensor, with its dimensions given and as float whenever
// its values fit.
#include <cmath>
#include <cstdint>
#include <exception>

#include "grain/core/error.hpp"
#include "grain/sparse/io.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const char* text = reinterpret_cast<const char*>(data);
  grain::SparseTensor<double, grain::HostSpace> X;
  try {
    X = grain::parse_tns<double>(text, size, "fuzz.tns");
  } catch (const std::exception&) {
    return 0;  // grain::Error: the expected outcome of malformed text
  }
  // Read again with the inferred dimensions given: the same nonzeros, in the same order.
  grain::TnsReadOptions opts;
  opts.dims = X.dims();
  const auto Y = grain::parse_tns<double>(text, size, "fuzz.tns", opts);
  if (Y.nnz() != X.nnz() || Y.dims() != X.dims()) __builtin_trap();
  for (grain::index_type j = 0; j < X.nnz(); ++j) {
    if (!std::isfinite(X.values()(j)) || Y.values()(j) != X.values()(j)) __builtin_trap();
    for (int m = 0; m < X.ndims(); ++m)
      if (Y.subscripts()(j, m) != X.subscripts()(j, m) || X.subscripts()(j, m) >= X.dim(m)) __builtin_trap();
  }
  // As float: every value finite in float, or a grain::Error.
  try {
    const auto F = grain::parse_tns<float>(text, size, "fuzz.tns");
    for (grain::index_type j = 0; j < F.nnz(); ++j)
      if (!std::isfinite(F.values()(j))) __builtin_trap();
  } catch (const grain::Error&) {
  }
  return 0;
}
