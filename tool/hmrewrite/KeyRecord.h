//===- KeyRecord.h - the calls a plan named in a rewritten file -*- C++ -*-===//
///
/// \file
/// A plan names calls by line and column; a formatter or an edit moves
/// them. So hmrewrite leaves at the end of each file it rewrites a comment
/// that says, for every call the plan names there, the key the plan names
/// it by and the call's TokenId (SourceTokens.h): which call it is, however
/// the file was formatted since. A rerun takes each call's key from it, not
/// from where the call is now, and never gives a key to whatever other call
/// now sits there.
///
///   /* hmrewrite-keys 8c2e41f0a9b3d775: the calls the plan names here, by
///    * key and token, for a rerun after a reformat or an edit:
///    * 4:13=malloc#0a1b2c3d 6:13=malloc#9f8e7d6c.2/3 */
///
/// (the hash of the keys the plan names in the file, keysHashFor; each call
/// `line:column=token#context`, with
/// `.rank/count` where the file has several alike).
///
//===----------------------------------------------------------------------===//
#ifndef HMPLACE_HMREWRITE_KEYRECORD_H
#define HMPLACE_HMREWRITE_KEYRECORD_H

#include "plan/SourceTokens.h"

#include "llvm/ADT/StringRef.h"

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace hmplace {

struct RecordedKey {
  unsigned Line = 0, Column = 0; ///< the plan's key of the call
  TokenId Id;
  bool operator==(const RecordedKey &O) const {
    return Line == O.Line && Column == O.Column && Id == O.Id;
  }
};

struct KeyRecord {
  uint64_t PlanHash = 0;
  std::vector<RecordedKey> Keys;
  /// Where it is in the file: [Begin, End), the blank line before it and
  /// the newline after it included.
  unsigned Begin = 0, End = 0;
};

/// The file's record (its last), if it has one that reads.
std::optional<KeyRecord> findKeyRecord(llvm::StringRef Text);

/// The record's text: a blank line, the comment wrapped at \p Width
/// columns, a newline (\p EOL).
std::string keyRecordText(const KeyRecord &R, llvm::StringRef EOL,
                          unsigned Width);

} // namespace hmplace

#endif
