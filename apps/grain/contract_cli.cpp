// `grain contract explain`: why Auto picks what it picks for one shape, over the library's
// contract_explain (include/grain/contract/explain.hpp).
#include <cstdio>
#include <string>

#include "cli.hpp"
#include "grain/contract/explain.hpp"
#include "grain/core/backends.hpp"

namespace grain::cli {

void add_contract_command(CLI::App& app) {
  static std::string kernel, shape, layout, dtype = "double", backend;
  CLI::App* contract = app.add_subcommand("contract", "the nine contractions: explain Auto's choice");
  contract->require_subcommand(1);
  CLI::App* cmd = contract->add_subcommand(
      "explain", "the facts Auto's model reads for one shape, the rules that hold, the candidates in its order, "
                 "and the pick a call makes");
  std::vector<std::string> kernel_names;
  for (ContractKernel k : kAllContractKernels) kernel_names.push_back(contract_kernel_name(k));
  cmd->add_option("--kernel", kernel, "the kernel, e.g. FieldFieldScalar")->required()->check(CLI::IsMember(kernel_names));
  cmd->add_option("--shape", shape,
                  "C,L,R,P[,D1[,D2]]: cells, left fields (1 unless FieldField), right fields (DataField's F; 1 "
                  "for DataData), points, tensor dimensions (default 3)")
      ->required()
      ->type_name("C,L,R,P[,D1[,D2]]");
  cmd->add_option("--layout", layout, "the Views' layout (default: left on cuda, right on the CPU)")
      ->check(CLI::IsMember({"left", "right"}));
  add_dtype_option(cmd, dtype);
  // Not checked for availability: the CUDA model may be explained on a machine without a GPU.
  cmd->add_option("--backend", backend, "serial, openmp or cuda (default: the fastest available)")
      ->check(CLI::IsMember({"serial", "openmp", "cuda"}));
  cmd->callback([] {
    set_action([] {
      ContractShapeSpec s = parse_contract_shape(parse_contract_kernel(kernel), shape);
      const std::string b = backend.empty() ? default_backend() : backend;
      s.layout_left = layout.empty() ? b == "cuda" : layout == "left";
      s.dbl = dtype == "double";
      std::fputs(contract_explain_text(contract_explain(s, b)).c_str(), stdout);
      return 0;
    });
  });
}

}  // namespace grain::cli
