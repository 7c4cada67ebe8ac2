// One part of a sparse tensor per process: read_sparse_part (text and binary) and
// generate_sparse_part, whose parts together must be the whole tensor read or generated at once.
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <fstream>
#include <random>
#include <string>
#include <utility>
#include <vector>

#include "grain_test.hpp"

namespace {

using grain::index_type;
using grain::subscript_type;
using grain::test::error_of;

std::string temp_path(const std::string& name) {
  return ::testing::TempDir() + "grain_parts_" + std::to_string(::getpid()) + "_" + name;
}

void write_text(const std::string& path, const std::string& text) {
  std::ofstream f(path, std::ios::binary);
  f << text;
}

// A nonzero as (0-based coordinates, value); a tensor as the sorted multiset of its nonzeros.
using Entry = std::pair<std::vector<subscript_type>, double>;

template <class T>
void append_entries(const grain::SparseTensor<T, grain::HostSpace>& X, std::vector<Entry>& out) {
  for (index_type j = 0; j < X.nnz(); ++j) {
    std::vector<subscript_type> c(X.ndims());
    for (int m = 0; m < X.ndims(); ++m) c[m] = X.subscripts()(j, m);
    out.emplace_back(std::move(c), static_cast<double>(X.values()(j)));
  }
}

template <class T>
std::vector<Entry> entries(const grain::SparseTensor<T, grain::HostSpace>& X) {
  std::vector<Entry> e;
  append_entries(X, e);
  std::sort(e.begin(), e.end());
  return e;
}

// Random .tns text with comments, blank lines, tabs, CRLF and no final newline; `expect` gets
// the nonzeros written (some coordinates repeat, as a file may hold them).
std::string random_tns(int nmodes, int lines, std::uint64_t seed, std::vector<Entry>& expect) {
  std::mt19937_64 g(seed);
  std::uniform_int_distribution<int> idx(1, 40);
  std::uniform_real_distribution<double> mag(0.5, 1.5);
  std::string text = "# a random " + std::to_string(nmodes) + "-way tensor\n\n";
  expect.clear();
  for (int l = 0; l < lines; ++l) {
    if (g() % 9 == 0) text += "# a comment line that makes the byte ranges uneven\n";
    if (g() % 11 == 0) text += (g() & 1) ? "\n" : "   \t\n";
    std::vector<subscript_type> c(nmodes);
    for (int m = 0; m < nmodes; ++m) {
      c[m] = static_cast<subscript_type>(l % 17 == 5 ? 0 : idx(g) - 1);
      if (g() % 7 == 0) text += "  ";
      text += std::to_string(c[m] + 1) + ((g() % 5 == 0) ? "\t" : " ");
    }
    const double v = ((g() & 1) ? 1.0 : -1.0) * mag(g);
    char buf[64];
    std::snprintf(buf, sizeof buf, "%.17g", v);
    text += buf;
    if (l + 1 < lines) text += (g() % 13 == 0) ? "\r\n" : "\n";
    expect.emplace_back(std::move(c), v);
  }
  std::sort(expect.begin(), expect.end());
  return text;
}

// Reads every part of `path`, checks each part's dimensions, and returns the union's entries.
std::vector<Entry> union_of_parts(const std::string& path, int parts, const grain::TnsReadOptions& opts,
                                  const std::vector<index_type>* part_dims, int* nonempty) {
  std::vector<Entry> all;
  if (nonempty) *nonempty = 0;
  for (int p = 0; p < parts; ++p) {
    auto X = grain::read_sparse_part<double>(path, p, parts, opts);
    if (X.ndims() == 0) {
      EXPECT_EQ(X.nnz(), 0);
      continue;
    }
    if (nonempty) ++*nonempty;
    EXPECT_GT(X.nnz(), 0) << "part " << p << " of " << parts;
    if (part_dims) {
      EXPECT_EQ(X.dims(), *part_dims) << "part " << p << " of " << parts;
    } else {  // the part's own dimensions: the largest index of each mode it holds
      std::vector<index_type> own(X.ndims(), 0);
      for (index_type j = 0; j < X.nnz(); ++j)
        for (int m = 0; m < X.ndims(); ++m)
          own[m] = std::max<index_type>(own[m], X.subscripts()(j, m) + 1);
      EXPECT_EQ(X.dims(), own) << "part " << p << " of " << parts;
    }
    append_entries(X, all);
  }
  std::sort(all.begin(), all.end());
  return all;
}

TEST(ReadPart, TextPartsUnionIsTheWholeFile) {
  for (int nmodes : {3, 4}) {
    std::vector<Entry> written;
    const std::string text = random_tns(nmodes, 300, 17 + nmodes, written);
    const std::string path = temp_path("whole" + std::to_string(nmodes) + ".tns");
    write_text(path, text);
    const auto whole = grain::read_sparse<double>(path);
    const auto expect = entries(whole);
    ASSERT_EQ(expect.size(), 300u);
    ASSERT_EQ(expect, written);  // the reference itself reads what was written
    for (int parts : {1, 2, 3, 7}) {
      int nonempty = 0;
      const auto got = union_of_parts(path, parts, {}, nullptr, &nonempty);
      EXPECT_EQ(got.size(), expect.size()) << parts << " parts";
      EXPECT_EQ(got, expect) << parts << " parts, " << nmodes << "-way";
      EXPECT_EQ(nonempty, parts);  // 300 lines: every part holds some
    }
    // One part is the whole file, in read_sparse's order and with its dimensions.
    const auto one = grain::read_sparse_part<double>(path, 0, 1);
    EXPECT_EQ(one.dims(), whole.dims());
    ASSERT_EQ(one.nnz(), whole.nnz());
    for (index_type j = 0; j < one.nnz(); ++j) {
      ASSERT_EQ(one.values()(j), whole.values()(j));
      for (int m = 0; m < nmodes; ++m) ASSERT_EQ(one.subscripts()(j, m), whole.subscripts()(j, m));
    }
    // Given dimensions are every part's.
    grain::TnsReadOptions o;
    o.dims = whole.dims();
    for (auto& d : o.dims) d += 3;
    EXPECT_EQ(union_of_parts(path, 3, o, &o.dims, nullptr), expect);
    std::remove(path.c_str());
  }
}

TEST(ReadPart, PartsReportStatsOfTheirBytes) {
  std::vector<Entry> written;
  const std::string text = random_tns(3, 200, 5, written);
  const std::string path = temp_path("stats.tns");
  write_text(path, text);
  double bytes = 0;
  for (int p = 0; p < 4; ++p) {
    grain::TnsReadStats st;
    (void)grain::read_sparse_part<float>(path, p, 4, {}, &st);
    EXPECT_GT(st.bytes, 0);
    EXPECT_LT(st.bytes, static_cast<double>(text.size()));
    bytes += st.bytes;
  }
  EXPECT_EQ(bytes, static_cast<double>(text.size()));  // the parts' byte ranges tile the file
  std::remove(path.c_str());
}

TEST(ReadPart, EmptyPartsAreDefaultConstructed) {
  const std::string path = temp_path("two.tns");
  write_text(path, "1 2 3 1.5\n4 5 6 -2.5\n");
  const auto expect = entries(grain::read_sparse<double>(path));
  ASSERT_EQ(expect.size(), 2u);
  int nonempty = 0;
  EXPECT_EQ(union_of_parts(path, 5, {}, nullptr, &nonempty), expect);
  EXPECT_EQ(nonempty, 2);
  write_text(path, "1 1 1 1\n2 2 2 2\n3 3 3 3\n");
  EXPECT_EQ(union_of_parts(path, 8, {}, nullptr, &nonempty), entries(grain::read_sparse<double>(path)));
  EXPECT_EQ(nonempty, 3);
  // A part whose bytes are only comments and blank lines holds no nonzero.
  write_text(path, "1 1 1 1\n" + std::string(10, '\n') + "# " + std::string(200, 'c') + "\n\n2 2 2 2\n");
  EXPECT_EQ(union_of_parts(path, 4, {}, nullptr, &nonempty), entries(grain::read_sparse<double>(path)));
  EXPECT_EQ(nonempty, 2);
  EXPECT_EQ(grain::read_sparse_part<double>(path, 1, 4).ndims(), 0);
  std::remove(path.c_str());
}

TEST(ReadPart, ErrorsNameTheLineInTheWholeFile) {
  const std::vector<std::string> bad = {"1 x 3 1.0", "1 2 3 abc", "1 0 3 1.0", "1 2 3 nan"};
  int later = 0;
  for (int k = 0; k < 60; ++k) {
    std::vector<Entry> written;
    std::string text = random_tns(3, 40, 100 + k, written);
    // Replace data line k % 40 (whichever line it falls on, comments included) with a bad one.
    std::vector<std::string> lines;
    for (std::size_t b = 0; b <= text.size();) {
      std::size_t e = text.find('\n', b);
      if (e == std::string::npos) e = text.size();
      lines.push_back(text.substr(b, e - b));
      b = e + 1;
    }
    std::vector<std::size_t> data;
    for (std::size_t i = 0; i < lines.size(); ++i)
      if (!lines[i].empty() && lines[i][0] != '#' && lines[i].find_first_not_of(" \t\r") != std::string::npos)
        data.push_back(i);
    lines[data[k % data.size()]] = bad[k % bad.size()];
    text.clear();
    for (std::size_t i = 0; i < lines.size(); ++i) text += lines[i] + (i + 1 < lines.size() ? "\n" : "");
    const std::string path = temp_path("bad.tns");
    write_text(path, text);
    const std::string expect = error_of([&] { (void)grain::read_sparse<double>(path); });
    ASSERT_NE(expect, "(no error)");
    ASSERT_NE(expect.find(path + ":"), std::string::npos) << expect;
    for (int parts : {3, 7}) {
      int failed = 0;
      for (int p = 0; p < parts; ++p) {
        const std::string got = error_of([&] { (void)grain::read_sparse_part<double>(path, p, parts); });
        if (got == "(no error)") continue;
        ++failed;
        EXPECT_EQ(got, expect) << "part " << p << " of " << parts;
        if (p > 0) ++later;
      }
      EXPECT_EQ(failed, 1) << parts << " parts";
    }
    std::remove(path.c_str());
  }
  EXPECT_GT(later, 50);  // most bad lines fall in a later part
}

TEST(ReadPart, GivenDimsMakeAWrongWidthAtAPartStartTheSameError) {
  // The fourth line, one field short (then one too many), is the first line of part 1 of 2: the
  // comment pads the second half to the first's 30 bytes.
  for (const std::string line : {"4 4 1.0", "4 4 4 4 1.0"}) {
    std::string second = line + "\n5 5 5 1.0\n";
    second += "#" + std::string(30 - second.size() - 2, 'x') + "\n";
    ASSERT_EQ(second.size(), 30u);
    const std::string text = "1 1 1 1.0\n2 2 2 1.0\n3 3 3 1.0\n" + second;
    const std::string path = temp_path("width.tns");
    write_text(path, text);
    grain::TnsReadOptions o;
    o.dims = {9, 9, 9};
    const std::string expect = error_of([&] { (void)grain::read_sparse<double>(path, o); });
    ASSERT_NE(expect.find(path + ":4:"), std::string::npos) << expect;
    EXPECT_EQ(error_of([&] { (void)grain::read_sparse_part<double>(path, 0, 2, o); }), "(no error)");
    EXPECT_EQ(error_of([&] { (void)grain::read_sparse_part<double>(path, 1, 2, o); }), expect);
    std::remove(path.c_str());
  }
}

TEST(ReadPart, BinaryPartsSplitTheNonzerosEvenly) {
  std::vector<Entry> written;
  const std::string tns = temp_path("src.tns");
  write_text(tns, random_tns(4, 500, 3, written));
  const auto X = grain::read_sparse<double>(tns);
  std::remove(tns.c_str());
  ASSERT_EQ(X.nnz(), 500);
  const std::string path = temp_path("parts.gst");
  grain::write_binary(path, X);
  const auto whole = grain::read_sparse<double>(path);
  const auto expect = entries(whole);
  ASSERT_EQ(expect, written);
  for (int parts : {1, 2, 3, 7}) {
    int nonempty = 0;
    const auto got = union_of_parts(path, parts, {}, &whole.dims(), &nonempty);
    EXPECT_EQ(got.size(), expect.size()) << parts << " parts";
    EXPECT_EQ(got, expect) << parts << " parts";
    EXPECT_EQ(nonempty, parts);
    for (int p = 0; p < parts; ++p)  // the first nnz % parts parts hold one more
      EXPECT_EQ(grain::read_sparse_part<double>(path, p, parts).nnz(), 500 / parts + (p < 500 % parts ? 1 : 0));
  }
  // Parts of 500 nonzeros in 600: the last 100 are empty.
  int nonempty = 0;
  EXPECT_EQ(union_of_parts(path, 600, {}, &whole.dims(), &nonempty), expect);
  EXPECT_EQ(nonempty, 500);
  // Float values read as double, and double as float.
  const std::string fpath = temp_path("parts_f.gst");
  grain::write_binary(fpath, grain::read_sparse<float>(path));
  const auto fwhole = entries(grain::read_sparse<double>(fpath));
  EXPECT_EQ(union_of_parts(fpath, 3, {}, &whole.dims(), nullptr), fwhole);
  std::vector<Entry> fparts;
  for (int p = 0; p < 3; ++p) append_entries(grain::read_sparse_part<float>(path, p, 3), fparts);
  std::sort(fparts.begin(), fparts.end());
  EXPECT_EQ(fparts, entries(grain::read_sparse<float>(path)));
  // Given dimensions must be the header's.
  grain::TnsReadOptions o;
  o.dims = {1, 2, 3, 4};
  EXPECT_NE(error_of([&] { (void)grain::read_sparse_part<double>(path, 1, 3, o); }).find("differ"),
            std::string::npos);
  std::remove(path.c_str());
  std::remove(fpath.c_str());
}

TEST(ReadPart, BinaryPartChecksItsIndices) {
  grain::SparseTensor<double, grain::HostSpace> X({5, 6, 7}, 10);
  for (index_type j = 0; j < 10; ++j) {
    for (int m = 0; m < 3; ++m) X.subscripts()(j, m) = static_cast<subscript_type>(j % 5);
    X.values()(j) = 1.0 + j;
  }
  X.subscripts()(8, 1) = 9;  // beyond dimension 6 of mode 2
  const std::string path = temp_path("badidx.gst");
  grain::write_binary(path, X);
  // Nonzero 8 lies in the last of 3 parts (4, 3, 3 nonzeros); the others read.
  EXPECT_EQ(grain::read_sparse_part<double>(path, 0, 3).nnz(), 4);
  EXPECT_EQ(grain::read_sparse_part<double>(path, 1, 3).nnz(), 3);
  const std::string e = error_of([&] { (void)grain::read_sparse_part<double>(path, 2, 3); });
  EXPECT_NE(e.find(path), std::string::npos) << e;
  EXPECT_NE(e.find("nonzero 8 has index 10 beyond dimension 6 of mode 2"), std::string::npos) << e;
  // A truncated file fails the size check in every part.
  std::ifstream in(path, std::ios::binary);
  std::string bytes((std::istreambuf_iterator<char>(in)), {});
  in.close();
  write_text(path, bytes.substr(0, bytes.size() - 4));
  EXPECT_NE(error_of([&] { (void)grain::read_sparse_part<double>(path, 0, 3); }).find("truncated"),
            std::string::npos);
  std::remove(path.c_str());
}

TEST(ReadPart, GzipCannotBeSplit) {
  std::vector<Entry> written;
  const std::string tns = temp_path("src2.tns");
  write_text(tns, random_tns(3, 50, 9, written));
  const auto X = grain::read_sparse<double>(tns);
  std::remove(tns.c_str());
  const std::string path = temp_path("whole.tns.gz");
  grain::write_tns(path, X);
  EXPECT_EQ(entries(grain::read_sparse_part<double>(path, 0, 1)), written);
  const std::string e = error_of([&] { (void)grain::read_sparse_part<double>(path, 0, 2); });
  EXPECT_NE(e.find(path), std::string::npos) << e;
  EXPECT_NE(e.find(".gz file cannot be split"), std::string::npos) << e;
  std::remove(path.c_str());
}

TEST(ReadPart, BadPartOrPartsIsAnError) {
  const std::string path = temp_path("ok.tns");
  write_text(path, "1 1 1 1\n");
  for (auto [part, parts] : std::vector<std::pair<int, int>>{{-1, 2}, {2, 2}, {0, 0}, {0, -3}, {5, 4}}) {
    const std::string e = error_of([&] { (void)grain::read_sparse_part<double>(path, part, parts); });
    EXPECT_NE(e.find("part " + std::to_string(part) + " of " + std::to_string(parts)), std::string::npos) << e;
    grain::GenerateOptions o;
    o.dims = {10, 10, 10};
    o.samples = 100;
    const std::string g = error_of([&] { (void)grain::generate_sparse_part<double>(o, part, parts); });
    EXPECT_NE(g.find("part " + std::to_string(part) + " of " + std::to_string(parts)), std::string::npos) << g;
  }
  std::remove(path.c_str());
}

// The parts of a generated tensor: their union is generate_sparse's, exactly.
void expect_generated_parts(const grain::GenerateOptions& o) {
  grain::PlantedModel whole_model;
  const auto whole = grain::generate_sparse<double>(o, &whole_model);
  const auto expect = entries(whole);
  ASSERT_GT(expect.size(), 100u);
  for (int parts : {1, 2, 3, 7}) {
    std::vector<Entry> all;
    index_type smallest = whole.nnz();
    for (int p = 0; p < parts; ++p) {
      grain::PlantedModel model;
      const auto X = grain::generate_sparse_part<double>(o, p, parts, &model);
      EXPECT_EQ(X.dims(), o.dims);
      smallest = std::min(smallest, X.nnz());
      append_entries(X, all);
      if (o.kind == grain::GeneratorKind::LowRank) {
        EXPECT_EQ(model.lambda, whole_model.lambda);
      }
    }
    std::sort(all.begin(), all.end());
    EXPECT_EQ(all.size(), expect.size()) << parts << " parts";
    EXPECT_EQ(all, expect) << parts << " parts";
    // Hashed coordinates balance the parts, however skewed the tensor (loosely for few nonzeros).
    const double share = whole.nnz() > 10000 ? 0.9 : 0.5;
    EXPECT_GT(static_cast<double>(smallest), share * static_cast<double>(whole.nnz()) / parts) << parts << " parts";
  }
  const auto one = grain::generate_sparse_part<double>(o, 0, 1);
  ASSERT_EQ(one.nnz(), whole.nnz());
  for (index_type j = 0; j < one.nnz(); ++j) ASSERT_EQ(one.values()(j), whole.values()(j));
}

TEST(GeneratePart, RandomKtensorPartsUnionIsTheWhole) {
  grain::GenerateOptions o;
  o.dims = {31, 47, 59};
  o.samples = 150000;  // three blocks of samples
  o.rank = 5;
  o.seed = 7;
  expect_generated_parts(o);
}

TEST(GeneratePart, SkewedPartsUnionIsTheWhole) {
  grain::GenerateOptions o;
  o.kind = grain::GeneratorKind::Skewed;
  o.dims = {200, 300, 100, 50};
  o.samples = 140000;
  o.rank = 4;
  o.skew = 1.5;
  o.seed = 11;
  expect_generated_parts(o);
}

TEST(GeneratePart, LowRankPartsUnionIsTheWhole) {
  grain::GenerateOptions o;
  o.kind = grain::GeneratorKind::LowRank;
  o.dims = {13, 17, 11, 7};
  o.rank = 3;
  o.support = 3;
  o.seed = 5;
  expect_generated_parts(o);
}

TEST(GeneratePart, AnEmptyPartHasTheFullDimensions) {
  grain::GenerateOptions o;
  o.dims = {4, 3, 2};
  o.samples = 3;
  o.rank = 2;
  const auto whole = grain::generate_sparse<float>(o);
  ASSERT_GT(whole.nnz(), 0);
  index_type total = 0;
  int empty = 0;
  for (int p = 0; p < 16; ++p) {
    const auto X = grain::generate_sparse_part<float>(o, p, 16);
    EXPECT_EQ(X.dims(), o.dims);
    total += X.nnz();
    empty += X.nnz() == 0;
  }
  EXPECT_EQ(total, whole.nnz());
  EXPECT_GE(empty, 13);
}

}  // namespace
