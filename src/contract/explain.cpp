// contract_explain (include/grain/contract/explain.hpp): the model's reasoning for one shape,
// computed on Views that wrap no memory (nothing is allocated or run). Host-only code.
#include "grain/contract/explain.hpp"

#include <cstdint>
#include <sstream>
#include <utility>

#include "grain/contract/contract.hpp"
#include "grain/contract/measure.hpp"  // contract_dispatch
#include "grain/contract/select.hpp"
#include "grain/core/backends.hpp"

namespace grain {

namespace {

// Distinct, never dereferenced addresses for the three operands, aligned as grain's allocations
// are and far enough apart that no shape below the limit overlaps another.
constexpr std::uintptr_t kFakeBase = std::uintptr_t(1) << 44;
constexpr double kMaxOperandBytes = double(std::uintptr_t(1) << 43);

template <class V, std::size_t... I>
V wrap(typename V::pointer_type ptr, const std::size_t* e, std::index_sequence<I...>) {
  return V(ptr, e[I]...);
}

template <class Types>
impl::ContractProblem<typename Types::value_type> fake_problem(const ContractShapeSpec& s) {
  using T = typename Types::value_type;
  using L = typename Types::layout;
  std::size_t le[5], re[5], oe[3];
  int nl = 0, nr = 0, no = 0;
  const std::size_t C = std::size_t(s.C);
  le[nl++] = C, re[nr++] = C, oe[no++] = C;
  if (Types::family == 2) le[nl++] = std::size_t(s.L), oe[no++] = std::size_t(s.L);
  if (Types::family >= 1) re[nr++] = std::size_t(s.R), oe[no++] = std::size_t(s.R);
  const std::size_t k[3] = {std::size_t(s.P), std::size_t(s.D1), std::size_t(s.D2)};
  for (int j = 0; j < Types::nk; ++j) le[nl++] = k[j], re[nr++] = k[j];
  using LeftV = View<typename impl::DataTypeOf<const T, Types::left_rank>::type, L, HostSpace>;
  using RightV = View<typename impl::DataTypeOf<const T, Types::right_rank>::type, L, HostSpace>;
  using OutV = View<typename impl::DataTypeOf<T, Types::out_rank>::type, L, HostSpace>;
  const LeftV left = wrap<LeftV>(reinterpret_cast<const T*>(kFakeBase), le, std::make_index_sequence<Types::left_rank>());
  const RightV right =
      wrap<RightV>(reinterpret_cast<const T*>(2 * kFakeBase), re, std::make_index_sequence<Types::right_rank>());
  const OutV out = wrap<OutV>(reinterpret_cast<T*>(3 * kFakeBase), oe, std::make_index_sequence<Types::out_rank>());
  for (const double bytes : {double(left.size()), double(right.size()), double(out.size())})
    if (bytes * sizeof(T) > kMaxOperandBytes)
      impl::throw_error("grain contract explain: an operand of this shape would hold ", bytes * sizeof(T),
                        " bytes; explain takes shapes up to 8 TiB an operand");
  return contract_problem(Types::kernel, out, left, right);
}

index_type parse_extent(const std::string& field, const std::string& text, const char* name) {
  std::size_t used = 0;
  long long v = -1;
  try {
    v = std::stoll(field, &used);
  } catch (const std::exception&) {
    used = 0;
  }
  if (used != field.size() || field.empty() || v < 1)
    impl::throw_error("the shape '", text, "': ", name, " must be a whole number >= 1, got '", field, "'");
  return index_type(v);
}

}  // namespace

ContractShapeSpec parse_contract_shape(ContractKernel kernel, const std::string& text) {
  std::vector<std::string> f;
  std::stringstream ss(text);
  for (std::string item; std::getline(ss, item, ',');) f.push_back(item);
  const int nk = contract_kernel_contracted(kernel);
  const std::size_t most = 4 + std::size_t(nk - 1);
  if (f.size() < 4 || f.size() > most)
    impl::throw_error("the shape '", text, "': expected C,L,R,P", nk >= 2 ? "[,D1" : "", nk >= 3 ? "[,D2]" : "",
                      nk >= 2 ? "]" : "", " for ", contract_kernel_name(kernel), " (", f.size(), " values given)");
  ContractShapeSpec s;
  s.kernel = kernel;
  s.C = parse_extent(f[0], text, "C");
  s.L = parse_extent(f[1], text, "L");
  s.R = parse_extent(f[2], text, "R");
  s.P = parse_extent(f[3], text, "P");
  s.D1 = nk >= 2 ? (f.size() > 4 ? parse_extent(f[4], text, "D1") : 3) : 1;
  s.D2 = nk >= 3 ? (f.size() > 5 ? parse_extent(f[5], text, "D2") : 3) : 1;
  const ContractFamily fam = contract_kernel_family(kernel);
  if (fam != ContractFamily::FieldField && s.L != 1)
    impl::throw_error("the shape '", text, "': ", contract_kernel_name(kernel), " has no left fields: L must be 1");
  if (fam == ContractFamily::DataData && s.R != 1)
    impl::throw_error("the shape '", text, "': ", contract_kernel_name(kernel), " has no fields: R must be 1");
  return s;
}

ContractExplanation contract_explain(const ContractShapeSpec& s, const std::string& backend_in) {
  ContractExplanation x;
  x.shape = s;
  x.backend = backend_in.empty() ? default_backend() : backend_in;
  ContractExec e = ContractExec::Serial;
  if (x.backend == "cuda")
    e = ContractExec::Cuda;
  else if (x.backend == "openmp")
    e = ContractExec::OpenMP;
  else if (x.backend != "serial")
    impl::throw_error("grain contract explain: unknown back end '", x.backend, "' (serial, openmp, cuda)");
  if (e == ContractExec::Cuda && !backend_unavailable_reason("cuda").empty())
    x.note = "no usable GPU here (" + backend_unavailable_reason("cuda") +
             "): the model's compute-capability facts are taken as absent";
  impl::contract_dispatch(s.kernel, s.dbl, s.layout_left, [&](auto types) {
    using Types = decltype(types);
    const auto p = fake_problem<Types>(s);
    const impl::ContractFacts f = impl::contract_facts(p, e);
    const unsigned mask = impl::contract_applicable_mask(p, e);
    const impl::ContractModelDecision d = impl::contract_model_decide(f, mask);
    x.facts = impl::contract_facts_lines(f);
    for (const impl::ContractRule* r : d.holding) x.holding.push_back({r->name, contract_algorithm_name(r->pick)});
    int rank = 0;
    for (ContractAlgorithm a : d.ranking) {
      ContractCandidate c;
      c.algorithm = a;
      c.rank = ++rank;
      c.rule = "fallback order";
      for (const impl::ContractRule* r : d.holding)
        if (r->pick == a) {
          c.rule = r->name;
          c.reason = r->reason;
          break;
        }
      if (!d.holding.empty() && c.rule == "fallback order")
        c.reason = "after the rules that hold, in the back end's usual order for the kernel family";
      x.candidates.push_back(c);
    }
    for (ContractAlgorithm a : kAllContractAlgorithms)
      if (const char* why = impl::contract_inapplicable_reason(p, a, e)) x.not_applicable.push_back({contract_algorithm_name(a), why});
    x.model_pick = d.pick;
    std::string source;
    const ContractAlgorithm tuned = impl::contract_tuned_algorithm(p, e, &source);
    const bool use_tuned = tuned != ContractAlgorithm::Auto && !impl::contract_inapplicable_reason(p, tuned, e);
    x.pick = use_tuned ? tuned : d.pick;
    x.pick_source = use_tuned ? source : "model";
    return 0;
  });
  return x;
}

std::string contract_explain_text(const ContractExplanation& x) {
  std::ostringstream os;
  const ContractShapeSpec& s = x.shape;
  os << contract_kernel_name(s.kernel) << " C=" << s.C << " L=" << s.L << " R=" << s.R << " P=" << s.P;
  if (contract_kernel_contracted(s.kernel) >= 2) os << " D1=" << s.D1;
  if (contract_kernel_contracted(s.kernel) >= 3) os << " D2=" << s.D2;
  os << ", " << (s.dbl ? "double" : "float") << ", layout " << (s.layout_left ? "left" : "right") << ", back end "
     << x.backend << "\n";
  if (!x.note.empty()) os << "note: " << x.note << "\n";
  os << "\nwhat the model reads:\n";
  for (const auto& [k, v] : x.facts) os << "  " << k << ": " << v << "\n";
  os << "\nrules that hold (in table order; the first whose algorithm applies decides):\n";
  if (x.holding.empty()) os << "  (none)\n";
  for (const auto& [name, alg] : x.holding) os << "  " << name << " -> " << alg << "\n";
  os << "\ncandidates (the model's estimate: its order, best first; Tuning::Measure times the top ones):\n";
  for (const ContractCandidate& c : x.candidates) {
    os << "  " << c.rank << ". " << contract_algorithm_name(c.algorithm) << "  [" << c.rule << "]";
    if (!c.reason.empty()) os << "  " << c.reason;
    os << "\n";
  }
  if (!x.not_applicable.empty()) {
    os << "\nnot applicable:\n";
    for (const auto& [alg, why] : x.not_applicable) os << "  " << alg << ": " << why << "\n";
  }
  os << "\nmodel's pick: " << contract_algorithm_name(x.model_pick) << "\n";
  os << "pick: " << contract_algorithm_name(x.pick) << " (" << x.pick_source << ")\n";
  return os.str();
}

}  // namespace grain
