//===- KeyRecord.cpp - the calls a plan named in a rewritten file ---------===//
#include "KeyRecord.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/Regex.h"

using namespace llvm;

namespace hmplace {

static const char Marker[] = "/* hmrewrite-keys ";

/// One `line:column=token#context[.rank/count]`.
static std::optional<RecordedKey> parseKey(StringRef W) {
  static const Regex Re("^([0-9]+):([0-9]+)=([^#[:space:]]+)#([0-9a-f]{8})"
                        "(\\.([0-9]+)/([0-9]+))?$");
  SmallVector<StringRef, 8> M;
  if (!Re.match(W, &M))
    return std::nullopt;
  RecordedKey K;
  unsigned Context;
  if (M[1].getAsInteger(10, K.Line) || M[2].getAsInteger(10, K.Column) ||
      M[4].getAsInteger(16, Context))
    return std::nullopt;
  K.Id.Text = M[3].str();
  K.Id.Context = Context;
  K.Id.Rank = K.Id.Count = 1;
  if (!M[5].empty() &&
      (M[6].getAsInteger(10, K.Id.Rank) || M[7].getAsInteger(10, K.Id.Count) ||
       !K.Id.Rank || K.Id.Rank > K.Id.Count))
    return std::nullopt;
  return K;
}

std::optional<KeyRecord> findKeyRecord(StringRef Text) {
  size_t At = Text.rfind(Marker);
  if (At == StringRef::npos)
    return std::nullopt;
  size_t Close = Text.find("*/", At);
  if (Close == StringRef::npos)
    return std::nullopt;
  SmallVector<StringRef, 32> Words;
  SplitString(Text.slice(At + sizeof(Marker) - 1, Close), Words);
  KeyRecord R;
  if (Words.empty() || !Words[0].consume_back(":") ||
      Words[0].getAsInteger(16, R.PlanHash))
    return std::nullopt;
  for (StringRef W : ArrayRef(Words).drop_front())
    if (std::optional<RecordedKey> K = parseKey(W))
      R.Keys.push_back(*K);
  // Its lines: from the start of the comment's line, and the blank line
  // before it; to the end of the line it closes on.
  size_t Begin = Text.rfind('\n', At);
  Begin = Begin == StringRef::npos ? 0 : Begin + 1;
  StringRef Before = Text.take_front(Begin);
  if (Before.ends_with("\n\n"))
    Begin -= 1;
  else if (Before.ends_with("\n\r\n"))
    Begin -= 2;
  size_t End = Text.find('\n', Close);
  R.Begin = unsigned(Begin);
  R.End = unsigned(End == StringRef::npos ? Text.size() : End + 1);
  return R;
}

static std::string keyText(const RecordedKey &K) {
  std::string S = std::to_string(K.Line) + ":" + std::to_string(K.Column) +
                  "=" + K.Id.Text + "#" +
                  utohexstr(K.Id.Context, /*LowerCase=*/true, 8);
  if (K.Id.Count > 1)
    S += "." + std::to_string(K.Id.Rank) + "/" + std::to_string(K.Id.Count);
  return S;
}

std::string keyRecordText(const KeyRecord &R, StringRef EOL, unsigned Width) {
  std::vector<std::string> Words = {std::string(Marker) +
                                    utohexstr(R.PlanHash, true, 16) + ":"};
  for (StringRef W : {"the", "calls", "the", "plan", "names", "here,", "by",
                      "key", "and", "token,", "for", "a", "rerun", "after", "a",
                      "reformat", "or", "an", "edit:"})
    Words.push_back(W.str());
  for (const RecordedKey &K : R.Keys)
    Words.push_back(keyText(K));
  Words.back() += " */";
  std::string Out = EOL.str(), Line = Words[0];
  for (size_t I = 1; I < Words.size(); ++I) {
    if (Line.size() + 1 + Words[I].size() > std::max(Width, 40u)) {
      Out += Line + EOL.str();
      Line = " *";
    }
    Line += " " + Words[I];
  }
  return Out + Line + EOL.str();
}

} // namespace hmplace
