//===- YamlTree.h - a plan's YAML as a small tree with source locations ---===//
//
// LLVM's YAML parser is a single-pass stream: a node cannot be read twice,
// and a plan's `tiers:` must be read before its `sites:` wherever they
// appear. This tree is built in one pass over the stream and then read at
// leisure. Its locations point into the parsed buffer itself, so they can be
// reported through the plan's DiagEngine.
//
//===----------------------------------------------------------------------===//
#ifndef HMPLACE_PLAN_YAMLTREE_H
#define HMPLACE_PLAN_YAMLTREE_H

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/MemoryBufferRef.h"
#include "llvm/Support/SMLoc.h"

#include <string>
#include <vector>

namespace hmplace {

struct YamlPair;

struct YamlNode {
  enum Kind { Null, Scalar, Map, Seq };
  Kind K = Null;
  /// Where the node starts; invalid for a value left empty (`key:`).
  llvm::SMLoc Loc;
  std::string Text;            ///< Scalar: the value, escapes resolved
  std::vector<YamlPair> Pairs; ///< Map, in source order (duplicates kept)
  std::vector<YamlNode> Items; ///< Seq

  bool isNull() const { return K == Null; }
  bool isScalar() const { return K == Scalar; }
  bool isMap() const { return K == Map; }
  bool isSeq() const { return K == Seq; }
};

struct YamlPair {
  YamlNode Key, Value;
};

/// The first document of \p Buffer. On malformed YAML returns false and sets
/// \p ErrLoc and \p Err to the parser's first complaint.
bool parseYamlTree(llvm::MemoryBufferRef Buffer, YamlNode &Root,
                   llvm::SMLoc &ErrLoc, std::string &Err);

} // namespace hmplace

#endif
