// `grain score A B`: the factor match score of two models' factor files (grain/cp/score.hpp).
// Host C++: the score is a few R x R products on the host.
#include <cstdio>
#include <string>

#include <nlohmann/json.hpp>

#include "commands.hpp"
#include "common/report.hpp"
#include "grain/cp/score.hpp"

namespace grain::cli {

int run_score(const ScoreCommand& c) {
  // With the JSON on standard output, the human-readable lines go to standard error.
  std::FILE* out = c.json == "-" ? stderr : stdout;
  const cp::Ktensor<double, HostSpace> A = cp::read_ktensor<double>(c.a);
  const cp::Ktensor<double, HostSpace> B = cp::read_ktensor<double>(c.b);
  if (A.dims() != B.dims())
    impl::throw_error("A (", c.a, ") is ", dims_string(A.dims()), " and B (", c.b, ") is ", dims_string(B.dims()),
                      ": models of the same tensor shape are needed");
  cp::FactorMatchOptions o;
  o.weight_penalty = !c.ignore_weights;
  const cp::FactorMatch fm = cp::factor_match_score(A, B, o);
  std::fprintf(out, "score %.8f: %s, rank %d against rank %d, %s\n", fm.score, dims_string(A.dims()).c_str(), A.rank(),
               B.rank(), c.ignore_weights ? "weights ignored" : "weights penalized");
  std::fprintf(out, "%5s %5s %12s\n", "A", "B", "score");
  for (const cp::ComponentMatch& p : fm.pairs) std::fprintf(out, "%5d %5d %12.8f\n", p.a + 1, p.b + 1, p.score);
  if (!c.json.empty()) {
    using json = nlohmann::ordered_json;
    json pairs = json::array();
    for (const cp::ComponentMatch& p : fm.pairs) pairs.push_back({{"a", p.a + 1}, {"b", p.b + 1}, {"score", p.score}});
    json j = {{"a", c.a},         {"b", c.b},         {"dims", A.dims()},
              {"rank_a", A.rank()}, {"rank_b", B.rank()}, {"weight_penalty", o.weight_penalty},
              {"score", fm.score}, {"pairs", pairs}};
    bench::write_output_file(c.json, j.dump(1) + "\n", "the score");
  }
  return 0;
}

}  // namespace grain::cli
