#include <grain/grain.hpp>
#include <cstdio>
#include <cstdlib>
#include <string>
template <class T> int run(int C, char kind) {
  const int P = 8, L = 8, D = 3;
  grain::ContractOptions opt;
  opt.algorithm = grain::ContractAlgorithm::Block;
  opt.exec = grain::ContractExec::OpenMP;
  grain::View<T***, grain::LayoutRight, grain::HostSpace> o("o", C, L, L);
  if (kind == 's') {
    grain::View<T***, grain::LayoutRight, grain::HostSpace> a("a", C, L, P), b("b", C, L, P);
    for (int r = 0; r < 3; ++r) grain::contract_field_field_scalar(o, a, b, opt);
  } else if (kind == 'v') {
    grain::View<T****, grain::LayoutRight, grain::HostSpace> a("a", C, L, P, D), b("b", C, L, P, D);
    for (int r = 0; r < 3; ++r) grain::contract_field_field_vector(o, a, b, opt);
  } else {
    grain::View<T*****, grain::LayoutRight, grain::HostSpace> a("a", C, L, P, D, D), b("b", C, L, P, D, D);
    for (int r = 0; r < 3; ++r) grain::contract_field_field_tensor(o, a, b, opt);
  }
  return int(o(C - 1, 1, 1));
}
int main(int argc, char** argv) {
  const int C = std::atoi(argv[1]);
  const char kind = argv[3][0];
  return std::string(argv[2]) == "d" ? run<double>(C, kind) : run<float>(C, kind);
}
