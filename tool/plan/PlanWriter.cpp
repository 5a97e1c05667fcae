//===- PlanWriter.cpp - write plans as YAML, .locations and tables --------===//
//
// Output is deterministic (tiers sorted by name, entries in plan order) so
// that `hmplan convert` of its own output reproduces it byte for byte.
//
//===----------------------------------------------------------------------===//
#include "plan/Plan.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/Format.h"

#include <set>

using namespace llvm;

namespace hmplace {

/// The length of the UTF-8 sequence at \p S[I] if it is a character YAML
/// does not take as printable (a C1 control other than NEL, U+2028, U+2029,
/// U+FEFF, U+FFFE, U+FFFF), with its code point in \p CP; 0 otherwise.
static size_t unprintableAt(StringRef S, size_t I, unsigned &CP) {
  auto At = [&](size_t J) { return J < S.size() ? (unsigned char)S[J] : 0u; };
  unsigned B0 = At(I), B1 = At(I + 1), B2 = At(I + 2);
  if (B0 == 0xC2 && B1 >= 0x80 && B1 <= 0x9F && B1 != 0x85) {
    CP = B1;
    return 2;
  }
  if ((B0 == 0xE2 && B1 == 0x80 && (B2 == 0xA8 || B2 == 0xA9)) ||
      (B0 == 0xEF && B1 == 0xBB && B2 == 0xBF) ||
      (B0 == 0xEF && B1 == 0xBF && (B2 == 0xBE || B2 == 0xBF))) {
    CP = ((B0 & 0x0F) << 12) | ((B1 & 0x3F) << 6) | (B2 & 0x3F);
    return 3;
  }
  return 0;
}

/// Quote \p S unless it is made only of characters that read back as the same
/// plain scalar in block and flow context alike (yaml-cpp is stricter than
/// the YAML spec about indicators inside flow sequences, so stay narrow).
/// Characters YAML does not print are escaped (`\u0080`), so that what is
/// written reads back as it was.
static std::string yamlScalar(StringRef S) {
  auto Safe = [](unsigned char C) {
    return isAlnum(C) || C >= 0x80 || StringRef("_-./+").contains(C);
  };
  bool Plain = !S.empty() && S != "~" && !S.equals_insensitive("null") &&
               (isAlnum(S.front()) || S.front() == '_' || S.front() == '/' ||
                S.front() == '.' || (unsigned char)S.front() >= 0x80);
  unsigned CP;
  for (size_t I = 0; Plain && I < S.size(); ++I) {
    unsigned char C = S[I];
    // ':' is safe only between non-space characters (file:line:col).
    if (C == ':')
      Plain = I + 1 < S.size() && Safe(S[I + 1]);
    else
      Plain = Safe(C) && !unprintableAt(S, I, CP);
  }
  if (Plain)
    return S.str();
  std::string Q = "\"";
  for (size_t I = 0; I < S.size(); ++I) {
    unsigned char C = S[I];
    if (size_t Len = unprintableAt(S, I, CP)) {
      Q += "\\u";
      for (int Shift = 12; Shift >= 0; Shift -= 4)
        Q += hexdigit((CP >> Shift) & 15, true);
      I += Len - 1;
    } else if (C == '"' || C == '\\') {
      Q += '\\';
      Q += char(C);
    } else if (C == '\n') {
      Q += "\\n";
    } else if (C == '\t') {
      Q += "\\t";
    } else if (C < 0x20 || C == 0x7f) {
      Q += "\\x";
      Q += hexdigit(C >> 4, true);
      Q += hexdigit(C & 15, true);
    } else {
      Q += char(C);
    }
  }
  return Q + "\"";
}

/// An entry's kind: a name, or a split as a flow map (Split.h).
static std::string targetYaml(const Target &T) {
  if (!T.isSplit())
    return yamlScalar(T.Spelling);
  std::string S = "{";
  for (const SplitPart &Pt : T.Parts)
    S += (S.size() > 1 ? ", " : "") + yamlScalar(Pt.Spelling) + ": " +
         utostr(Pt.Percent) + "%";
  return S + "}";
}

/// The `tokens:` of \p P's frames (SourceTokens.h), each frame once.
static void writeTokens(const Plan &P, raw_ostream &OS) {
  std::vector<std::pair<std::string, std::string>> Tokens;
  std::set<std::string> Seen;
  for (const PlanEntry &E : P.Entries)
    for (const Frame &F : E.Frames)
      if (!F.Token.empty() && Seen.insert(F.str()).second)
        Tokens.push_back({F.str(), F.Token});
  if (Tokens.empty())
    return;
  OS << "tokens:\n";
  for (const auto &[Frame, Token] : Tokens)
    OS << "  " << yamlScalar(Frame) << ": " << Token << "\n";
}

void writeYaml(const Plan &P, raw_ostream &OS) {
  OS << "version: " << P.Version << "\n";
  if (!P.Note.empty())
    OS << "note: " << yamlScalar(P.Note) << "\n";
  if (P.IgnoreCase)
    OS << "ignore-case: true\n";
  if (!P.Tiers.empty()) {
    OS << "tiers:\n";
    for (const auto &[Name, T] : P.Tiers) {
      OS << "  " << yamlScalar(Name)
         << ": {kind: " << yamlScalar(T->KindSpelling);
      if (T->Capacity)
        OS << ", capacity: " << formatSize(*T->Capacity);
      if (!T->Note.empty())
        OS << ", note: " << yamlScalar(T->Note);
      OS << "}\n";
    }
  }
  if (P.Entries.empty()) {
    OS << "sites: []\n";
    return;
  }
  OS << "sites:\n";
  for (const PlanEntry &E : P.Entries) {
    if (E.isFileSet()) {
      OS << "  - files: [";
      ListSeparator LS(", ");
      for (const std::string &G : E.Files)
        OS << LS << yamlScalar(G);
      OS << "]\n";
    } else if (E.IsStack) {
      OS << "  - stack: [";
      ListSeparator LS(", ");
      for (const Frame &F : E.Frames)
        OS << LS << yamlScalar(F.str());
      OS << "]\n";
    } else {
      OS << "  - site: " << yamlScalar(E.Frames.front().str()) << "\n";
    }
    if (!E.Object.empty())
      OS << "    object: " << yamlScalar(E.Object) << "\n";
    OS << "    kind: " << targetYaml(E.To) << "\n";
    if (E.MinSize)
      OS << "    min-size: " << formatSize(*E.MinSize) << "\n";
    if (E.MaxSize)
      OS << "    max-size: " << formatSize(*E.MaxSize) << "\n";
    if (!E.Size.empty())
      OS << "    size: " << yamlScalar(E.Size) << "\n";
    if (!E.Note.empty())
      OS << "    note: " << yamlScalar(E.Note) << "\n";
  }
  writeTokens(P, OS);
}

/// FlexMalloc's allocator name for a kind, or nullptr.
static const char *allocatorFor(const KindInfo *K) {
  if (K->isHeap())
    return "posix";
  StringRef N = K->Name;
  if (N == "MEMKIND_HBW")
    return "memkind/hbwmalloc";
  if (N == "MEMKIND_DAX_KMEM")
    return "memkind/pmem";
  return nullptr;
}

bool writeLocations(const Plan &P, raw_ostream &OS, DiagEngine &D) {
  bool OK = true;
  for (const PlanEntry &E : P.Entries) {
    bool Merged = llvm::any_of(
        E.Frames, [](const Frame &F) { return F.Kind == Frame::Form::Merged; });
    bool NoDebug = llvm::any_of(E.Frames, [](const Frame &F) {
      return F.Kind == Frame::Form::NoDebug;
    });
    const char *What = E.isFileSet()       ? "a set of files"
                       : Merged            ? "a merged call (file:0 (function))"
                       : NoDebug           ? "a function without debug info"
                       : E.hasWindow()     ? "a size window"
                       : !E.Object.empty() ? "an object"
                       : E.To.isSplit()    ? "a split across kinds"
                                           : nullptr;
    if (What) {
      D.report(E.To.isSplit() ? E.KindLoc : E.KeyLoc, Severity::Error,
               "plan entry '" + E.key() + "' has " + What +
                   ", which .locations cannot say; keep the YAML plan");
      OK = false;
      continue;
    }
    const char *A = allocatorFor(E.To.Kind);
    if (!A) {
      D.report(E.KindLoc, Severity::Error,
               Twine("kind ") + E.To.Kind->Name +
                   " has no FlexMalloc allocator name; .locations can only "
                   "say posix, memkind/hbwmalloc or memkind/pmem");
      OK = false;
      continue;
    }
    OS << E.key() << " @ " << A << "\n";
  }
  return OK;
}

static std::string targetText(const Target &T) {
  if (T.isSplit())
    return T.Spelling + " (" + T.kindText() + ")";
  std::string S = T.Spelling;
  if (T.TheTier)
    S += " (tier, " + std::string(T.Kind->Name) + ")";
  else if (S != T.Kind->Name)
    S += " (" + std::string(T.Kind->Name) + ")";
  return S;
}

void writeTable(const Plan &P, raw_ostream &OS) {
  OS << P.Path << ": " << formatName(P.Format) << " plan, " << P.Entries.size()
     << (P.Entries.size() == 1 ? " entry" : " entries") << ", "
     << P.Tiers.size() << (P.Tiers.size() == 1 ? " tier" : " tiers") << "\n";
  if (!P.Tiers.empty()) {
    OS << "\n";
    size_t W = 4;
    for (const auto &T : P.Tiers)
      W = std::max(W, T.first.size());
    OS << left_justify("TIER", W) << "  " << left_justify("KIND", 40)
       << "  CAPACITY\n";
    for (const auto &[Name, T] : P.Tiers)
      OS << left_justify(Name, W) << "  " << left_justify(T->Kind->Name, 40)
         << "  " << (T->Capacity ? humanSize(*T->Capacity) : "-") << "\n";
  }
  if (P.Entries.empty())
    return;
  OS << "\n";
  size_t KW = 4, TW = 6;
  for (const PlanEntry &E : P.Entries) {
    KW = std::max(KW, E.key().size());
    TW = std::max(TW, targetText(E.To).size());
  }
  OS << right_justify("#", 4) << "  " << left_justify("SITE", KW) << "  "
     << left_justify("TARGET", TW) << "  SIZE        NOTE\n";
  unsigned N = 0;
  for (const PlanEntry &E : P.Entries) {
    std::string Size = "-";
    std::string Err;
    if (!E.Size.empty())
      if (auto B = parseSize(E.Size, Err))
        Size = humanSize(*B);
    OS << right_justify(std::to_string(++N), 4) << "  "
       << left_justify(E.key(), KW) << "  "
       << left_justify(targetText(E.To), TW) << "  " << left_justify(Size, 10)
       << "  " << E.Note << "\n";
  }
}

void writeSummary(const Plan &P, raw_ostream &OS) {
  unsigned Sites = 0, Stacks = 0, Binary = 0, FileSets = 0;
  std::map<std::string, unsigned> ByKind;
  for (const PlanEntry &E : P.Entries) {
    (E.isFileSet() ? FileSets : E.Frames.size() > 1 ? Stacks : Sites)++;
    if (llvm::any_of(E.Frames, [](const Frame &F) {
          return F.Kind == Frame::Form::Binary;
        }))
      ++Binary;
    ByKind[E.To.kindText()]++;
  }
  OS << P.Path << ": ok: " << formatName(P.Format) << " plan, version "
     << P.Version << "\n";
  OS << "  entries: " << P.Entries.size() << " (" << Sites << " sites, "
     << Stacks << " call stacks"
     << (FileSets ? ", " + std::to_string(FileSets) + " file sets" : "")
     << ")\n";
  if (!ByKind.empty()) {
    OS << "  targets:";
    ListSeparator LS(",");
    for (const auto &[K, N] : ByKind)
      OS << LS << " " << K << " " << N;
    OS << "\n";
  }
  for (const auto &[Name, T] : P.Tiers) {
    OS << "  tier " << Name << ": " << T->Kind->Name;
    if (T->Capacity)
      OS << ", budget " << formatSize(*T->Capacity) << " ("
         << humanSize(*T->Capacity) << ")";
    OS << "\n";
  }
  if (Binary)
    OS << "  note: " << Binary
       << " entries use binary frames (module!offset); hmrewrite and "
          "HmPlace.so match source locations only\n";
}

} // namespace hmplace
