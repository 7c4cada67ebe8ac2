// Reading and writing sparse tensors.
//
// FROSTT .tns text: one nonzero per line, N 1-based indices then the value, separated by spaces
// or tabs; blank lines and lines starting with '#' are skipped; a name ending in .gz is read and
// written through zlib. The text is parsed in parallel from a memory map with std::from_chars
// (no streams). Every malformed input raises grain::Error naming the file, line and column.
//
// The binary form ("grain sparse tensor", .gst) reloads at disk speed: a 64-byte-aligned header
// (magic, version, modes, value and index sizes, nnz, dimensions, checksum) followed by the raw
// subscripts and values. A truncated or corrupted file is an error.
#pragma once

#include <string>
#include <vector>

#include "grain/sparse/sparse_tensor.hpp"

namespace grain {

struct TnsReadOptions {
  std::vector<index_type> dims;  // empty: inferred as the largest index of each mode
  int threads = 0;               // 0: all OpenMP threads
};

struct TnsReadStats {
  double bytes = 0;    // text bytes parsed (decompressed size for .gz)
  double seconds = 0;  // wall time of reading and parsing
  double MBps() const { return seconds > 0 ? bytes / seconds / 1e6 : 0.0; }
};

template <class T>
SparseTensor<T, HostSpace> read_tns(const std::string& path, const TnsReadOptions& opts = {},
                                    TnsReadStats* stats = nullptr);
// Parses .tns text already in memory; `name` is used in error messages.
template <class T>
SparseTensor<T, HostSpace> parse_tns(const char* text, std::size_t size, const std::string& name,
                                     const TnsReadOptions& opts = {});

template <class T>
void write_tns(const std::string& path, const SparseTensor<T, HostSpace>& X);

template <class T>
void write_binary(const std::string& path, const SparseTensor<T, HostSpace>& X);
template <class T>
SparseTensor<T, HostSpace> read_binary(const std::string& path);

// Reads .tns, .tns.gz or the binary form (recognized by its magic bytes), converting the
// values to T.
template <class T>
SparseTensor<T, HostSpace> read_sparse(const std::string& path, const TnsReadOptions& opts = {},
                                       TnsReadStats* stats = nullptr);

// Part `part` (0-based) of `parts` of a sparse tensor file, for processes that each hold a share
// of the nonzeros. .tns text is split into byte ranges aligned to lines (a line belongs to the
// part in which its first byte lies), so each part parses only its bytes; errors name the line in
// the whole file. The binary form is split by nonzero ranges, the first nnz % parts parts holding
// one more (its header, size and the part's indices are checked; its checksum covers the whole
// file and is not). A text part has its own dimensions (the largest index of each mode it holds)
// unless opts.dims gives them, a binary part the header's. A part that holds no nonzero is
// default-constructed (ndims() == 0), so a file with none gives only such parts. A text part takes
// its mode count from opts.dims, else from its own first line: without dims, compare ndims()
// across parts to catch a file whose lines change width at a part boundary. The union of the
// parts' nonzeros is read_sparse's, for any `parts`. A .gz file cannot be split: for parts > 1 it
// is an error (decompress it, or write the binary form). parts == 1 is read_sparse. Bad part or
// parts are errors.
template <class T>
SparseTensor<T, HostSpace> read_sparse_part(const std::string& path, int part, int parts,
                                            const TnsReadOptions& opts = {},
                                            TnsReadStats* stats = nullptr);

// True when the file starts with the binary form's magic.
bool is_binary_sparse(const std::string& path);

namespace impl {
// Writes into a binary form's image in memory (header, subscripts, values) the checksum its
// writer would store, for tools that build or mend such an image (the fuzz target does, to reach
// the checks behind the checksum). False, the image untouched, when its header's sizes do not fit.
bool set_binary_checksum(unsigned char* image, std::size_t size);
}  // namespace impl

}  // namespace grain
