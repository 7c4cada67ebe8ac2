// Options the grain tool's command groups share (cli.hpp).
#include "cli.hpp"

#include "grain/core/backends.hpp"
#include "grain/sparse/sparse_tensor.hpp"

namespace grain::cli {

CLI::Option* add_backend_option(CLI::App* cmd, std::string& backend, bool with_all) {
  // Availability is checked here, so that `--backend cuda` on a machine without a GPU is a usage
  // error before any work.
  CLI::Validator available(
      [with_all](std::string& v) -> std::string {
        if (with_all && v == "all") return "";
        const std::string why = backend_unavailable_reason(v);
        return why.empty() ? "" : "back end '" + v + "': " + why;
      },
      with_all ? "serial|openmp|cuda|all" : "serial|openmp|cuda");
  return cmd
      ->add_option("--backend", backend,
                   std::string("back end; default: cuda when a GPU is visible, else openmp, else serial") +
                       (with_all ? "; all: every available one in turn" : ""))
      ->check(available);
}

CLI::Option* add_dtype_option(CLI::App* cmd, std::string& dtype) {
  return cmd->add_option("--dtype", dtype, "element type")->check(CLI::IsMember({"float", "double"}));
}

CLI::Option* add_json_option(CLI::App* cmd, std::string& json, const std::string& what) {
  return cmd->add_option("--json", json, "write " + what + " as JSON to FILE ('-': standard output)")
      ->type_name("FILE");
}

void add_generator_options(CLI::App* cmd, GeneratorArgs& g) {
  cmd->add_option("--kind", g.kind, "generator: random-ktensor (a sum of random rank-one terms), "
                                    "skewed (power-law coordinates), lowrank (a planted sparse low-rank model)")
      ->check(CLI::IsMember({"random-ktensor", "skewed", "lowrank"}));
  cmd->add_option("--dims", g.dims, "mode sizes, e.g. 300x400x500")->delimiter('x')->type_name("AxBxC")
      ->check(CLI::PositiveNumber);
  cmd->add_option("--nnz", g.gen.samples,
                  "coordinates to draw, repeats summed (required for random-ktensor and skewed; lowrank ignores it)")
      ->check(CLI::Range(1LL, 1LL << 40))
      ->default_str("");
  cmd->add_option("--gen-rank", g.gen.rank, "components of the generating model")->check(CLI::Range(1, 4096));
  cmd->add_option("--skew", g.gen.skew, "skewed: power-law exponent")->check(CLI::Range(0.0, 10.0));
  cmd->add_option("--support", g.gen.support, "lowrank: nonzero rows per factor column")
      ->check(CLI::Range(1LL, 1LL << 31));
  cmd->add_option("--seed", g.gen.seed, "random seed")->check(CLI::Range(0ULL, 1ULL << 62));
}

std::vector<long long> checked_dims(const std::vector<long long>& dims, const std::string& option) {
  try {
    SparseTensor<double>::check_dims(std::vector<index_type>(dims.begin(), dims.end()));
  } catch (const Error& e) {
    throw CLI::ValidationError(option, e.what());
  }
  return dims;
}

GenerateOptions generator_options(const GeneratorArgs& g) {
  GenerateOptions out = g.gen;
  out.kind = parse_generator_kind(g.kind);
  if (g.dims.empty()) throw CLI::RequiredError("--dims (e.g. --dims 3000x4000x5000)");
  const std::vector<long long> d = checked_dims(g.dims, "--dims");
  out.dims.assign(d.begin(), d.end());
  if (out.kind != GeneratorKind::LowRank && out.samples < 1)
    throw CLI::RequiredError(std::string("--nnz N (coordinates to draw) for --kind ") + g.kind);
  if (out.kind == GeneratorKind::LowRank && out.samples < 1) out.samples = 1;
  return out;
}

}  // namespace grain::cli
