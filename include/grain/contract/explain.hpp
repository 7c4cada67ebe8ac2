// Why Auto picks what it picks, for one shape: the facts the model reads, every rule that holds,
// the candidates in the model's order with the rule that ranks each, the algorithms that do not
// apply and why, and the pick a call of that shape makes (a measured winner where the process or
// the tuning file has one, else the model). `grain contract explain` prints it.
//
//   grain::ContractShapeSpec s{grain::ContractKernel::FieldFieldScalar, 10000, 27, 27, 27};
//   grain::ContractExplanation x = grain::contract_explain(s, "cuda");
//   std::fputs(grain::contract_explain_text(x).c_str(), stdout);
#pragma once

#include <string>
#include <vector>

#include "grain/contract/options.hpp"
#include "grain/contract/problem.hpp"

namespace grain {

// A call's shape: kernel, cells, fields (L left, R right: DataField's F is R, DataData has none),
// points and the tensor dimensions; layout of the inputs and output; element type.
struct ContractShapeSpec {
  ContractKernel kernel = ContractKernel::FieldFieldScalar;
  index_type C = 1, L = 1, R = 1, P = 1, D1 = 1, D2 = 1;
  bool layout_left = false;  // LayoutLeft Views (else LayoutRight)
  bool dbl = true;           // double (else float)
};

// Parses "C,L,R,P[,D1[,D2]]" for `kernel`: D1 for Vector and Tensor kernels (default 3), D2 for
// Tensor ones (default 3); L = 1 for DataData and DataField, R = 1 for DataData. grain::Error naming
// the value for anything else.
ContractShapeSpec parse_contract_shape(ContractKernel kernel, const std::string& text);

struct ContractCandidate {
  ContractAlgorithm algorithm = ContractAlgorithm::Auto;
  int rank = 0;             // 1 = the model's pick
  std::string rule;         // the first holding rule naming it, or "fallback order"
  std::string reason;       // that rule's reason
};

struct ContractExplanation {
  ContractShapeSpec shape;
  std::string backend;                                       // serial, openmp, cuda
  std::vector<std::pair<std::string, std::string>> facts;    // what the model reads
  std::vector<std::pair<std::string, std::string>> holding;  // rules that hold: name, algorithm
  std::vector<ContractCandidate> candidates;                 // applicable, the model's order
  std::vector<std::pair<std::string, std::string>> not_applicable;  // algorithm, why
  ContractAlgorithm model_pick = ContractAlgorithm::Auto;    // the model's
  ContractAlgorithm pick = ContractAlgorithm::Auto;          // the call's (measured winner, else model)
  std::string pick_source;                                   // "model", or where the measured one came from
  std::string note;                                          // e.g. the GPU facts assumed without a GPU
};

// The explanation for `shape` on `backend` (serial, openmp, cuda; "" the default back end). The
// CUDA model may be explained without a GPU: its compute-capability facts are then false and
// `note` says so. grain::Error for an unknown back end or a shape the kernel cannot take.
ContractExplanation contract_explain(const ContractShapeSpec& shape, const std::string& backend);

// The text `grain contract explain` prints, ending with a newline.
std::string contract_explain_text(const ContractExplanation& x);

}  // namespace grain
