// .tns reading (every error path), writing, the binary form, permutations.
#include <unistd.h>
#include <zlib.h>

#include <algorithm>
#include <cstdio>
#include <fstream>
#include <iterator>
#include <string>

#include "grain_test.hpp"

namespace {

using grain::index_type;

std::string temp_path(const std::string& name) {
  return ::testing::TempDir() + "grain_sparse_" + std::to_string(::getpid()) + "_" + name;
}

void write_text(const std::string& path, const std::string& text) {
  std::ofstream f(path, std::ios::binary);
  f << text;
}

// Expects parse to fail with a message containing every fragment.
void expect_parse_error(const std::string& text, const std::vector<std::string>& fragments,
                        const std::vector<index_type>& dims = {}) {
  grain::TnsReadOptions o;
  o.dims = dims;
  try {
    (void)grain::parse_tns<double>(text.data(), text.size(), "t.tns", o);
    ADD_FAILURE() << "no error for:\n" << text;
  } catch (const grain::Error& e) {
    for (const auto& f : fragments)
      EXPECT_NE(std::string(e.what()).find(f), std::string::npos)
          << "message '" << e.what() << "' lacks '" << f << "'";
  }
}

TEST(Tns, ParsesCommentsBlankLinesTabsAndInfersDims) {
  const std::string text = "# a comment\n\n1 2 3 1.5\n  3\t1 1 -2e0\r\n# end\n2 4 7 0.25";
  auto X = grain::parse_tns<double>(text.data(), text.size(), "t.tns");
  ASSERT_EQ(X.ndims(), 3);
  ASSERT_EQ(X.nnz(), 3);
  EXPECT_EQ(X.dims(), (std::vector<index_type>{3, 4, 7}));
  EXPECT_EQ(X.subscripts()(0, 0), 0u);
  EXPECT_EQ(X.subscripts()(0, 2), 2u);
  EXPECT_EQ(X.subscripts()(1, 0), 2u);
  EXPECT_EQ(X.values()(1), -2.0);
  EXPECT_EQ(X.values()(2), 0.25);
}

TEST(Tns, GivenDimsAreKept) {
  const std::string text = "1 1 5\n";
  grain::TnsReadOptions o;
  o.dims = {10, 20};
  auto X = grain::parse_tns<float>(text.data(), text.size(), "t.tns", o);
  EXPECT_EQ(X.dims(), (std::vector<index_type>{10, 20}));
}

TEST(Tns, ErrorsNameFileLineAndColumn) {
  expect_parse_error("1 2 3 1.0\n1 2 1.0\n", {"t.tns:2:", "expected 4 fields", "found 3"});
  expect_parse_error("1 2 3 1.0\n1 2 3 4 1.0\n", {"t.tns:2:9:", "more than 4 fields"});
  expect_parse_error("1 2 3 1.0\n1 0 3 1.0\n", {"t.tns:2:3:", "at least 1"});
  expect_parse_error("1 2 3 1.0\n1 -4 3 1.0\n", {"t.tns:2:3:", "-4", "at least 1"});
  expect_parse_error("1 2 3 1.0\n1 2.5 3 1.0\n", {"t.tns:2:3:", "not an integer"});
  expect_parse_error("1 2 3 1.0\n1 x 3 1.0\n", {"t.tns:2:3:", "not an integer"});
  expect_parse_error("1 2 3 1.0\n1 2 3 nan\n", {"t.tns:2:7:", "not finite"});
  expect_parse_error("1 2 3 1.0\n\n1 2 3 inf\n", {"t.tns:3:7:", "not finite"});
  expect_parse_error("1 2 3 1e999\n", {"t.tns:1:7:", "out of range"});
  expect_parse_error("1 2 3 abc\n", {"t.tns:1:7:", "not a number"});
  expect_parse_error("1 2 3 1.0\n1 2 9 1.0\n", {"t.tns:2:5:", "exceeds the given dimension 5"},
                     {5, 5, 5});
  expect_parse_error("1 2 3 1.0\n", {"3 modes", "2 dimensions"}, {5, 5});
  expect_parse_error("1 2.0\n", {"t.tns:1:1:", "3 to 9 fields"});
  expect_parse_error("99999999999 2 3 1.0\n", {"t.tns:1:1:", "2^32"});
  expect_parse_error("", {"t.tns", "empty file"});
  expect_parse_error("# only comments\n\n   \n", {"t.tns", "empty file"});
}

TEST(Tns, FloatOverflowIsNotFinite) {
  const std::string text = "1 1 1e300\n";
  EXPECT_THROW((void)grain::parse_tns<float>(text.data(), text.size(), "t.tns"), grain::Error);
}

TEST(Tns, MissingFileIsAnError) {
  try {
    (void)grain::read_tns<double>("/nonexistent/x.tns");
    FAIL();
  } catch (const grain::Error& e) {
    EXPECT_NE(std::string(e.what()).find("/nonexistent/x.tns"), std::string::npos);
  }
}

TEST(Tns, ErrorLineIsGlobalAcrossParallelPieces) {
  // Large enough to be split into several pieces (4 MiB each).
  std::string text;
  const int lines = 400000;
  for (int i = 0; i < lines; ++i) text += "12 34 56 0.123456789012\n";
  text += "1 2 3 4 5\n";
  expect_parse_error(text, {"t.tns:" + std::to_string(lines + 1) + ":9:", "more than 4"});
  const std::string ok = text.substr(0, text.size() - 10);
  auto X = grain::parse_tns<double>(ok.data(), ok.size(), "t.tns");
  EXPECT_EQ(X.nnz(), lines);
  EXPECT_EQ(X.values()(lines - 1), 0.123456789012);
}

grain::SparseTensor<double> random_tensor(int N, index_type nnz, std::uint64_t seed) {
  std::vector<index_type> dims;
  for (int m = 0; m < N; ++m) dims.push_back(3 + 4 * m);
  grain::SparseTensor<double> X(dims, nnz);
  std::mt19937_64 g(seed);
  for (index_type j = 0; j < nnz; ++j) {
    for (int m = 0; m < N; ++m) X.subscripts()(j, m) = static_cast<grain::subscript_type>(g() % dims[m]);
    X.values()(j) = std::ldexp(static_cast<double>(g() % 1000000) - 500000, -7) + 1e-3;
  }
  return X;
}

void expect_same(const grain::SparseTensor<double>& a, const grain::SparseTensor<double>& b) {
  ASSERT_EQ(a.dims(), b.dims());
  ASSERT_EQ(a.nnz(), b.nnz());
  for (index_type j = 0; j < a.nnz(); ++j) {
    ASSERT_EQ(a.values()(j), b.values()(j));
    for (int m = 0; m < a.ndims(); ++m) ASSERT_EQ(a.subscripts()(j, m), b.subscripts()(j, m));
  }
}

TEST(Tns, TextRoundTripPlainAndGzip) {
  auto X = random_tensor(4, 1001, 7);
  for (const char* name : {"rt.tns", "rt.tns.gz"}) {
    const std::string p = temp_path(name);
    grain::write_tns(p, X);
    grain::TnsReadOptions o;
    o.dims = X.dims();
    grain::TnsReadStats st;
    auto Y = grain::read_sparse<double>(p, o, &st);
    expect_same(X, Y);
    EXPECT_GT(st.bytes, 0);
    std::remove(p.c_str());
  }
}

TEST(Tns, CorruptGzipIsAnError) {
  const std::string p = temp_path("bad.tns.gz");
  write_text(p, std::string("\x1f\x8b\x08\x00garbage-not-deflate", 23));
  EXPECT_THROW((void)grain::read_tns<double>(p), grain::Error);
  std::remove(p.c_str());
}

// The bytes of a file.
std::string read_bytes(const std::string& path) {
  std::ifstream f(path, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(f), std::istreambuf_iterator<char>());
}

// Reading `bytes` as a .tns.gz raises grain::Error whose message names the file and `expected`.
void expect_gzip_error(const std::string& bytes, const std::string& expected) {
  const std::string p = temp_path("damaged.tns.gz");
  write_text(p, bytes);
  try {
    (void)grain::read_tns<double>(p);
    ADD_FAILURE() << "no error for a damaged gzip file (" << expected << ")";
  } catch (const grain::Error& e) {
    const std::string what = e.what();
    EXPECT_NE(what.find(p), std::string::npos) << what;
    EXPECT_NE(what.find(expected), std::string::npos) << what;
  }
  std::remove(p.c_str());
}

// A partial download, a flipped bit and trailing bytes are errors, never a smaller tensor; two
// concatenated members (as `cat a.gz b.gz` makes) read as one stream, as gzip reads them.
TEST(Tns, DamagedGzipIsAnErrorAndMembersConcatenate) {
  auto X = random_tensor(3, 2000, 5);
  const std::string good = temp_path("good.tns.gz");
  grain::write_tns(good, X);
  const std::string bytes = read_bytes(good);
  ASSERT_GT(bytes.size(), 64u);
  expect_gzip_error(bytes.substr(0, bytes.size() - 4), "truncated");   // the length of the trailer cut off
  expect_gzip_error(bytes.substr(0, bytes.size() - 8), "truncated");   // the whole trailer
  expect_gzip_error(bytes.substr(0, bytes.size() / 2), "truncated");   // half the file
  std::string crc = bytes;
  crc[crc.size() - 8] = static_cast<char>(crc[crc.size() - 8] ^ 0x01);  // the CRC's first byte
  expect_gzip_error(crc, "corrupt");
  std::string body = bytes;
  body[body.size() / 2] = static_cast<char>(body[body.size() / 2] ^ 0x10);  // a bit in the data
  expect_gzip_error(body, "corrupt");
  expect_gzip_error(bytes + "trailing garbage", "trailing data");
  expect_gzip_error(std::string(), "empty");

  // Two members: the tensor's first lines in one, the rest in another.
  const std::string plain = temp_path("good.tns");
  grain::write_tns(plain, X);
  const std::string text = read_bytes(plain);
  const std::size_t cut = text.find('\n', text.size() / 3) + 1;
  const std::string two = temp_path("two.tns.gz");
  {
    std::FILE* f = std::fopen(two.c_str(), "wb");
    ASSERT_NE(f, nullptr);
    for (const std::string& part : {text.substr(0, cut), text.substr(cut)}) {
      const std::string member = temp_path("member.gz");
      gzFile g = gzopen(member.c_str(), "wb");
      ASSERT_NE(g, nullptr);
      ASSERT_EQ(gzwrite(g, part.data(), static_cast<unsigned>(part.size())), static_cast<int>(part.size()));
      ASSERT_EQ(gzclose(g), Z_OK);
      const std::string m = read_bytes(member);
      ASSERT_EQ(std::fwrite(m.data(), 1, m.size(), f), m.size());
      std::remove(member.c_str());
    }
    std::fclose(f);
  }
  grain::TnsReadOptions o;
  o.dims = X.dims();
  expect_same(X, grain::read_sparse<double>(two, o));
  for (const std::string& p : {good, plain, two}) std::remove(p.c_str());
}

TEST(Binary, RoundTripAndFloatConversion) {
  auto X = random_tensor(3, 777, 11);
  const std::string p = temp_path("rt.gst");
  grain::write_binary(p, X);
  EXPECT_TRUE(grain::is_binary_sparse(p));
  expect_same(X, grain::read_sparse<double>(p));
  auto F = grain::read_binary<float>(p);
  ASSERT_EQ(F.nnz(), X.nnz());
  EXPECT_EQ(F.values()(5), static_cast<float>(X.values()(5)));
  std::remove(p.c_str());
}

std::string slurp(const std::string& p) {
  std::ifstream f(p, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(f), {});
}

void expect_binary_error(const std::string& bytes, const std::string& fragment) {
  const std::string p = temp_path("bad.gst");
  write_text(p, bytes);
  try {
    (void)grain::read_binary<double>(p);
    ADD_FAILURE() << "no error (" << fragment << ")";
  } catch (const grain::Error& e) {
    EXPECT_NE(std::string(e.what()).find(fragment), std::string::npos) << e.what();
  }
  std::remove(p.c_str());
}

TEST(Binary, TruncatedOrCorruptedIsAnError) {
  auto X = random_tensor(3, 500, 13);
  const std::string p = temp_path("c.gst");
  grain::write_binary(p, X);
  const std::string good = slurp(p);
  std::remove(p.c_str());
  expect_binary_error(good.substr(0, good.size() - 1), "truncated");
  expect_binary_error(good.substr(0, 100), "truncated");
  expect_binary_error(good + "x", "corrupted");
  std::string flip = good;
  flip[good.size() - 3] ^= 0x10;  // a value bit
  expect_binary_error(flip, "checksum");
  flip = good;
  flip[200] ^= 0x01;  // a subscript bit
  expect_binary_error(flip, "checksum");
  flip = good;
  flip[8] = 9;  // version
  expect_binary_error(flip, "version");
  flip = good;
  flip[0] = 'X';
  expect_binary_error(flip, "magic");
}

template <class Exec>
void check_permutation() {
  using Space = typename Exec::memory_space;
  auto H = random_tensor(3, 2001, 17);
  auto X = H.template to_space<Space>();
  for (int m = 0; m < 3; ++m) {
    auto p = grain::create_mirror_view(X.permutation(m));
    grain::deep_copy(p, X.permutation(m));
    std::vector<int> seen(H.nnz(), 0);
    for (index_type j = 0; j < H.nnz(); ++j) {
      ASSERT_GE(p(j), 0);
      ASSERT_LT(p(j), H.nnz());
      ++seen[p(j)];
      if (j > 0) {
        const auto a = H.subscripts()(p(j - 1), m), b = H.subscripts()(p(j), m);
        ASSERT_TRUE(a < b || (a == b && p(j - 1) < p(j))) << "not a stable sort at " << j;
      }
    }
    for (index_type j = 0; j < H.nnz(); ++j) ASSERT_EQ(seen[j], 1);
    // The sorted copy holds nonzero p(j) at position j: every subscript and the value.
    const auto& S = X.sorted(m);
    ASSERT_TRUE(X.has_sorted(m));
    ASSERT_EQ(S.nnz(), H.nnz());
    ASSERT_EQ(S.dims(), H.dims());
    auto ss = grain::create_mirror_view(S.subscripts());
    auto sv = grain::create_mirror_view(S.values());
    grain::deep_copy(ss, S.subscripts());
    grain::deep_copy(sv, S.values());
    for (index_type j = 0; j < H.nnz(); ++j) {
      for (int q = 0; q < 3; ++q) ASSERT_EQ(ss(j, q), H.subscripts()(p(j), q)) << "mode " << m << " nonzero " << j;
      ASSERT_EQ(sv(j), H.values()(p(j))) << "mode " << m << " nonzero " << j;
    }
    ASSERT_EQ(&X.sorted(m), &S);  // cached
  }
}
GRAIN_BACKEND_TEST(SparsePermutation, StableSortByMode) { check_permutation<TypeParam>(); }

// The tiled copy for mode n staged on mode s: a permutation of the nonzeros (same multiset of
// tuples and values), ordered by (s's index / rows, n's index), and equal keys keep the tensor's
// order (stable), checked against an independent std::stable_sort on the host.
template <class Exec>
void check_tiled_copy() {
  using Space = typename Exec::memory_space;
  auto H = random_tensor(3, 2001, 23);
  auto X = H.template to_space<Space>();
  const index_type rows = 3;
  for (auto ns : {std::pair{0, 1}, std::pair{2, 0}, std::pair{1, 2}}) {
    const int n = ns.first, s = ns.second;
    const auto& T = X.tiled(n, s, rows);
    ASSERT_EQ(&X.tiled(n, s, rows), &T);  // cached
    std::vector<index_type> order(H.nnz());
    for (index_type j = 0; j < H.nnz(); ++j) order[j] = j;
    std::stable_sort(order.begin(), order.end(), [&](index_type a, index_type b) {
      const auto ta = H.subscripts()(a, s) / rows, tb = H.subscripts()(b, s) / rows;
      return ta != tb ? ta < tb : H.subscripts()(a, n) < H.subscripts()(b, n);
    });
    auto ts = grain::create_mirror_view(T.subscripts());
    auto tv = grain::create_mirror_view(T.values());
    grain::deep_copy(ts, T.subscripts());
    grain::deep_copy(tv, T.values());
    for (index_type j = 0; j < H.nnz(); ++j) {
      for (int q = 0; q < 3; ++q) ASSERT_EQ(ts(j, q), H.subscripts()(order[j], q)) << "n " << n << " s " << s << " at " << j;
      ASSERT_EQ(tv(j), H.values()(order[j])) << "n " << n << " s " << s << " at " << j;
    }
  }
  EXPECT_THROW((void)X.tiled(1, 1, rows), grain::Error);  // staged on its own mode
  EXPECT_THROW((void)X.tiled(0, 3, rows), grain::Error);  // no mode 3
  EXPECT_THROW((void)X.tiled(0, 1, 0), grain::Error);     // empty tiles
}
GRAIN_BACKEND_TEST(SparsePermutation, TiledCopyOrder) { check_tiled_copy<TypeParam>(); }

TEST(SparseTensor, RejectsBadShapes) {
  EXPECT_THROW(grain::SparseTensor<double>({5}, 3), grain::Error);
  EXPECT_THROW(grain::SparseTensor<double>({2, 2, 2, 2, 2, 2, 2, 2, 2}, 3), grain::Error);
  EXPECT_THROW(grain::SparseTensor<double>({5, 0}, 3), grain::Error);
  EXPECT_THROW(grain::SparseTensor<double>({5, 5}, -1), grain::Error);
}

}  // namespace
