//===- PlanReader.cpp - read YAML plans and import advisor files ----------===//
//
// Three input formats, one model. YAML goes through LLVM's parser into a
// YamlTree whose locations point into the plan buffer; the two line-oriented
// advisor formats are scanned directly so that every error points at the exact
// byte. Parsing continues after an error so a user sees every problem of a plan
// in one run.
//
//===----------------------------------------------------------------------===//
#include "plan/BoundedRead.h"
#include "plan/Plan.h"
#include "plan/SourceTokens.h"
#include "plan/Split.h"
#include "plan/YamlTree.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/StringSet.h"
#include "llvm/Support/ConvertUTF.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/GlobPattern.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/xxhash.h"

using namespace llvm;

namespace hmplace {

const char *formatName(PlanFormat F) {
  switch (F) {
  case PlanFormat::Yaml:
    return "HmPlace YAML";
  case PlanFormat::Locations:
    return "FlexMalloc .locations";
  case PlanFormat::MemoryDefinitions:
    return "FlexMalloc memory definitions";
  }
  return "?";
}

std::string PlanEntry::key() const {
  if (isFileSet())
    return "files: " + join(Files, ", ");
  std::string S;
  for (const Frame &F : Frames) {
    if (!S.empty())
      S += " > ";
    S += F.str();
  }
  if (!Object.empty())
    S += " (object " + Object + ")";
  return S;
}

/// Why \p G cannot be a `files:` pattern, or "".
static std::string fileGlobError(StringRef G) {
  if (G.empty())
    return "empty file pattern";
  if (Expected<GlobPattern> Pat = GlobPattern::create(G); !Pat)
    return "bad file pattern '" + G.str() + "': " + toString(Pat.takeError());
  return "";
}

bool addAutoHbwEntry(Plan &P, StringRef AutoHbwSize,
                     const std::vector<std::string> &Globs, StringRef Kind,
                     std::string &Err) {
  PlanEntry E;
  auto [Lo, Hi] = AutoHbwSize.split(':');
  std::optional<uint64_t> Min = parseSize(Lo, Err);
  if (!Min)
    return false;
  E.MinSize = *Min;
  if (AutoHbwSize.contains(':')) {
    if (!(E.MaxSize = parseSize(Hi, Err)))
      return false;
    if (*E.MaxSize < *E.MinSize) {
      Err = "AUTO_HBW_SIZE '" + AutoHbwSize.str() +
            "': the upper bound is below the lower one";
      return false;
    }
  }
  for (const std::string &G : Globs)
    if (!(Err = fileGlobError(G)).empty())
      return false;
  E.Files = Globs.empty() ? std::vector<std::string>{"*"} : Globs;
  E.Frames.emplace_back(); // the placeholder: names no call
  E.To.Kind = P.resolveKind(Kind, &E.To.TheTier);
  E.To.Spelling = E.To.TheTier ? Kind.str() : kindSpelling(Kind);
  if (!E.To.Kind) {
    Err = "unknown kind '" + Kind.str() + "'; see 'hmplan kinds'";
    return false;
  }
  E.Note = "AUTO_HBW_SIZE=" + AutoHbwSize.str();
  E.Index = P.Entries.size();
  P.Entries.push_back(std::move(E));
  P.HasFileSets = P.HasWindows = true;
  return true;
}

void Plan::setSource(StringRef File, StringRef Text) {
  Path = File.str();
  PlanDir = normalizePath(sys::path::parent_path(Path), "");
  if (!sys::path::is_absolute(PlanDir)) {
    SmallString<256> Cwd;
    if (!sys::fs::current_path(Cwd))
      PlanDir = normalizePath(PlanDir, Cwd);
  }
  ContentHash = xxh3_64bits(arrayRefFromStringRef(Text));
}

const Tier *Plan::findTier(StringRef Name) const {
  auto It = Tiers.find(Name.str());
  return It == Tiers.end() ? nullptr : It->second.get();
}

const KindInfo *Plan::resolveKind(StringRef Name, const Tier **T) const {
  *T = findTier(Name);
  if (*T)
    return (*T)->Kind;
  if (const KindInfo *K = findKind(Name))
    return K;
  return findAlias(Name);
}

std::vector<std::string> Plan::targetNames() const {
  std::vector<std::string> Names;
  for (const KindInfo &K : allKinds())
    Names.push_back(K.Name);
  for (const KindAlias &A : allAliases())
    Names.push_back(A.Name);
  for (const auto &T : Tiers)
    Names.push_back(T.first);
  return Names;
}

static bool isUTF8(StringRef S) {
  const UTF8 *P = reinterpret_cast<const UTF8 *>(S.begin());
  return isLegalUTF8String(&P, reinterpret_cast<const UTF8 *>(S.end()));
}

namespace {

/// Shared by the three readers: error counting and target resolution.
class ReaderBase {
protected:
  ReaderBase(DiagEngine &D, unsigned Buf, Plan &P) : D(D), BufID(Buf), P(P) {}

  void error(SMLoc L, const Twine &Msg) {
    D.report(L, Severity::Error, Msg);
    Failed = true;
  }
  void warning(SMLoc L, const Twine &Msg) {
    D.report(L, Severity::Warning, Msg);
  }

  /// Resolve \p Name as an entry or tier target; reports unknown names with a
  /// suggestion. \p AllowTier is false inside `tiers:` (a tier is a kind, not
  /// another tier).
  bool resolveTarget(StringRef Name, SMLoc L, Target &T, bool AllowTier) {
    T.Spelling = Name.str();
    const Tier *Ti = nullptr;
    T.Kind = AllowTier ? P.resolveKind(Name, &Ti)
                       : (findKind(Name) ? findKind(Name) : findAlias(Name));
    T.TheTier = Ti;
    if (!Ti)
      T.Spelling = kindSpelling(Name);
    if (T.Kind)
      return true;
    std::vector<std::string> Names = P.targetNames();
    if (!AllowTier)
      llvm::erase_if(Names, [&](const std::string &N) {
        return P.findTier(N) != nullptr;
      });
    std::string Hint = closestName(Name, Names);
    if (!Hint.empty())
      error(L, "unknown kind '" + Name + "'; did you mean '" + Hint + "'?");
    else
      error(L, "unknown kind '" + Name +
                   "'; expected a memkind kind (MEMKIND_HBW, ...), an alias "
                   "(hbm, ddr, pmem, posix, ...)" +
                   (AllowTier ? " or a tier of this plan" : "") +
                   "; see 'hmplan kinds'");
    return false;
  }

  /// Same key as an earlier entry: the same target is a harmless duplicate,
  /// a different one a conflict no reader could decide.
  void checkDuplicates() {
    std::map<std::string, const PlanEntry *> Seen;
    for (const PlanEntry &E : P.Entries) {
      std::string K = canonicalKey(E);
      auto [It, New] = Seen.emplace(K, &E);
      if (New)
        continue;
      const PlanEntry &First = *It->second;
      if (First.To.samePlacement(E.To)) {
        warning(E.KeyLoc, "duplicate entry for '" + E.key() + "' (first at " +
                              D.describe(First.Loc) + ")");
      } else {
        error(E.KindLoc, "conflicting entry for '" + E.key() + "': '" +
                             E.To.Spelling + "' here, '" + First.To.Spelling +
                             "' at " + D.describe(First.Loc));
        D.report(First.KindLoc, Severity::Note, "first entry is here");
      }
    }
  }

  static bool isFortranName(StringRef S) {
    return !S.empty() && isAlpha(S[0]) &&
           llvm::all_of(S, [](char C) { return isAlnum(C) || C == '_'; });
  }

  static std::string canonicalKey(const PlanEntry &E) {
    if (E.isFileSet())
      return "files:" + join(E.Files, "\n");
    std::string S;
    for (const Frame &F : E.Frames) {
      Frame C = F;
      if (C.Kind == Frame::Form::Source) {
        SmallString<128> Path(C.File);
        sys::path::remove_dots(Path, /*remove_dot_dot=*/false);
        C.File = std::string(Path);
      }
      S += C.str();
      S += '\n';
    }
    return S + E.Object;
  }

  DiagEngine &D;
  unsigned BufID;
  Plan &P;
  bool Failed = false;
};

//===----------------------------------------------------------------------===//
// HmPlace YAML
//===----------------------------------------------------------------------===//

class YamlReader : ReaderBase {
public:
  YamlReader(DiagEngine &D, unsigned Buf, Plan &P) : ReaderBase(D, Buf, P) {}

  bool read() {
    YamlNode Root;
    SMLoc ErrLoc;
    std::string Err;
    if (!parseYamlTree(D.buffer(BufID)->getMemBufferRef(), Root, ErrLoc, Err)) {
      error(ErrLoc.isValid() ? ErrLoc : D.locAt(BufID, 0, 0),
            "malformed YAML: " + Err);
      return false;
    }
    if (Root.isNull()) {
      error(D.locAt(BufID, 0, 0),
            "plan is empty; expected 'version: 1' and 'sites:'");
      return false;
    }
    if (!Root.isMap()) {
      error(loc(Root), "plan must be a YAML mapping with 'version' and "
                       "'sites' keys");
      return false;
    }
    readTop(Root);
    checkDuplicates();
    return !Failed;
  }

private:
  SMLoc loc(const YamlNode &N) {
    return N.Loc.isValid() ? N.Loc : D.locAt(BufID, 0, 0);
  }
  /// Where a pair's value is, or its key where the value is left empty
  /// (`hbm: ,` has no value to point at).
  SMLoc valueLoc(const YamlPair &Pair) {
    return Pair.Value.Loc.isValid() ? Pair.Value.Loc : loc(Pair.Key);
  }

  /// Scalar text of \p N, or an error naming \p What.
  std::optional<std::string> scalar(const YamlNode &N, SMLoc Fallback,
                                    const Twine &What) {
    if (!N.isScalar()) {
      error(N.Loc.isValid() ? N.Loc : Fallback,
            What + (N.isNull() ? " is empty" : " must be a scalar"));
      return std::nullopt;
    }
    const std::string &S = N.Text;
    if (!isUTF8(S)) {
      error(loc(N), What + " is not valid UTF-8");
      return std::nullopt;
    }
    return S;
  }

  /// Iterate a mapping's pairs, rejecting duplicate and unknown keys.
  template <typename Fn>
  void forEachKey(const YamlNode &Map, ArrayRef<std::string> Known,
                  const Twine &Where, Fn Visit) {
    StringSet<> Seen;
    for (const YamlPair &Pair : Map.Pairs) {
      const YamlNode &K = Pair.Key, &V = Pair.Value;
      SMLoc KL = loc(K);
      std::optional<std::string> Key = scalar(K, KL, "key");
      if (!Key)
        continue;
      if (!Seen.insert(*Key).second) {
        error(KL, "duplicate key '" + *Key + "' in " + Where);
        continue;
      }
      if (!llvm::is_contained(Known, *Key)) {
        std::string Hint = closestName(*Key, Known);
        error(KL, "unknown key '" + *Key + "' in " + Where +
                      (Hint.empty() ? std::string()
                                    : "; did you mean '" + Hint + "'?"));
        continue;
      }
      Visit(*Key, V, KL);
    }
  }

  void readTop(const YamlNode &Root) {
    static const std::vector<std::string> Keys = {
        "version", "tiers", "sites", "ignore-case", "note", "tokens"};
    bool HaveVersion = false, HaveSites = false;
    const YamlNode *Sites = nullptr, *Tokens = nullptr;
    SMLoc SitesLoc, TokensLoc;
    forEachKey(Root, Keys, "the plan",
               [&](StringRef K, const YamlNode &V, SMLoc KL) {
                 if (K == "version") {
                   HaveVersion = true;
                   readVersion(V, KL);
                 } else if (K == "tiers") {
                   readTiers(V, KL);
                 } else if (K == "sites") {
                   HaveSites = true;
                   Sites = &V;
                   SitesLoc = KL;
                 } else if (K == "ignore-case") {
                   if (auto S = scalar(V, KL, "'ignore-case'")) {
                     if (*S == "true")
                       P.IgnoreCase = true;
                     else if (*S != "false")
                       error(loc(V), "'ignore-case' must be true or false");
                   }
                 } else if (K == "note") {
                   if (auto S = scalar(V, KL, "'note'"))
                     P.Note = *S;
                 } else if (K == "tokens") {
                   Tokens = &V;
                   TokensLoc = KL;
                 }
               });
    SMLoc Start = D.locAt(BufID, 0, 0);
    if (!HaveVersion)
      error(Start, "missing 'version'; add 'version: 1' at the top");
    if (!HaveSites)
      error(Start, "missing 'sites'; add 'sites:' with a list of entries "
                   "(or 'sites: []')");
    // Tiers first, wherever they appear, so entries can name them.
    if (HaveSites)
      readSites(*Sites, SitesLoc);
    if (Tokens) // once the entries' frames are there
      readTokens(*Tokens, TokensLoc);
  }

  void readVersion(const YamlNode &V, SMLoc KL) {
    auto S = scalar(V, KL, "'version'");
    if (!S)
      return;
    unsigned N;
    if (StringRef(*S).getAsInteger(10, N)) {
      error(loc(V), "'version' must be an integer, got '" + *S + "'");
      return;
    }
    if (N != 1) {
      error(loc(V), "unsupported plan version " + Twine(N) +
                        "; this HmPlace reads version 1");
      return;
    }
    P.Version = N;
  }

  void readTiers(const YamlNode &V, SMLoc KL) {
    if (V.isNull())
      return;
    if (!V.isMap()) {
      error(loc(V), "'tiers' must be a mapping of tier names to "
                    "{kind: ..., capacity: ...}");
      return;
    }
    static const std::vector<std::string> Keys = {"kind", "capacity", "note"};
    StringSet<> Seen;
    for (const YamlPair &Pair : V.Pairs) {
      const YamlNode &NameNode = Pair.Key, &Body = Pair.Value;
      SMLoc NL = loc(NameNode);
      auto Name = scalar(NameNode, NL, "tier name");
      if (!Name)
        continue;
      if (!Seen.insert(*Name).second) {
        error(NL, "duplicate tier '" + *Name + "'");
        continue;
      }
      if (Name->empty() || !llvm::all_of(*Name, [](char C) {
            return isAlnum(C) || C == '_' || C == '-' || C == '.';
          })) {
        error(NL, "invalid tier name '" + *Name +
                      "'; use letters, digits, '_', '-' and '.'");
        continue;
      }
      // `posix` may name a tier (FlexMalloc budgets the ordinary heap too);
      // memkind's own names may not, or plans would read ambiguously.
      if (findKind(*Name) && !findKind(*Name)->isHeap()) {
        error(NL, "tier name '" + *Name +
                      "' is a memkind kind name; pick "
                      "another name");
        continue;
      }
      auto T = std::make_unique<Tier>();
      T->Name = *Name;
      T->Loc = NL;
      if (!Body.isMap()) {
        error(Body.Loc.isValid() ? Body.Loc : NL,
              "tier '" + *Name +
                  "' must be a mapping like {kind: "
                  "MEMKIND_HBW, capacity: 16GiB}");
        continue;
      }
      bool HaveKind = false;
      forEachKey(Body, Keys, "tier '" + *Name + "'",
                 [&](StringRef K, const YamlNode &F, SMLoc FL) {
                   if (K == "kind") {
                     HaveKind = true;
                     auto S = scalar(F, FL, "'kind'");
                     Target Tg;
                     if (S && resolveTarget(*S, loc(F), Tg,
                                            /*AllowTier=*/false)) {
                       T->Kind = Tg.Kind;
                       T->KindSpelling = Tg.Spelling;
                     }
                   } else if (K == "capacity") {
                     auto S = scalar(F, FL, "'capacity'");
                     std::string Err;
                     if (S) {
                       T->Capacity = parseSize(*S, Err);
                       if (!T->Capacity)
                         error(loc(F), Err);
                     }
                   } else if (K == "note") {
                     if (auto S = scalar(F, FL, "'note'"))
                       T->Note = *S;
                   }
                 });
      if (!HaveKind)
        error(NL, "tier '" + *Name + "' has no 'kind'");
      P.Tiers[*Name] = std::move(T);
    }
  }

  void readSites(const YamlNode &V, SMLoc KL) {
    if (V.isNull())
      return;
    if (!V.isSeq()) {
      error(loc(V), "'sites' must be a list of entries ('- site: file:line' "
                    "and 'kind: ...')");
      return;
    }
    static const std::vector<std::string> Keys = {
        "site", "stack",  "files",    "kind",    "size",
        "note", "object", "min-size", "max-size"};
    for (const YamlNode &N : V.Items) {
      SMLoc EL = loc(N);
      if (!N.isMap()) {
        error(EL, "site entry must be a mapping with 'site' (or 'stack') and "
                  "'kind'");
        continue;
      }
      PlanEntry E;
      E.Loc = EL;
      bool HaveKey = false, HaveKind = false, Bad = false;
      SMLoc MinLoc, MaxLoc;
      forEachKey(
          N, Keys, "site entry", [&](StringRef K, const YamlNode &F, SMLoc FL) {
            if (K == "site" || K == "stack" || K == "files") {
              if (HaveKey) {
                error(FL, "entry has more than one of 'site', 'stack' and "
                          "'files'; use one");
                Bad = true;
                return;
              }
              HaveKey = true;
              E.KeyLoc = FL;
              E.IsStack = K == "stack";
              if (!(K == "files" ? readFiles(F, FL, E) : readKey(F, FL, E)))
                Bad = true;
            } else if (K == "kind") {
              HaveKind = true;
              E.KindLoc = loc(F);
              if (F.isMap()) {
                if (!readSplit(F, FL, E.To))
                  Bad = true;
              } else {
                auto S = scalar(F, FL, "'kind'");
                if (!S || !resolveTarget(*S, loc(F), E.To, /*AllowTier=*/true))
                  Bad = true;
              }
            } else if (K == "size") {
              if (auto S = scalar(F, FL, "'size'")) {
                std::string Err;
                if (!parseSize(*S, Err)) {
                  error(loc(F), Err);
                  Bad = true;
                }
                E.Size = *S;
              }
            } else if (K == "note") {
              if (auto S = scalar(F, FL, "'note'"))
                E.Note = *S;
            } else if (K == "min-size" || K == "max-size") {
              if (auto S = scalar(F, FL, "'" + K.str() + "'")) {
                std::string Err;
                std::optional<uint64_t> B = parseSize(*S, Err);
                if (!B) {
                  error(loc(F), Err);
                  Bad = true;
                } else {
                  (K == "min-size" ? E.MinSize : E.MaxSize) = *B;
                  P.HasWindows = true;
                  (K == "min-size" ? MinLoc : MaxLoc) = loc(F);
                }
              }
            } else if (K == "object") {
              if (auto S = scalar(F, FL, "'object'")) {
                if (!isFortranName(*S)) {
                  error(loc(F), "'object' names one Fortran variable of a "
                                "multi-object ALLOCATE (letters, digits, _; "
                                "components cannot be told apart yet)");
                  Bad = true;
                }
                E.Object = StringRef(*S).lower();
                P.HasObjects = true;
              }
            }
          });
      if (!HaveKey) {
        error(EL, "entry has no 'site' or 'stack'");
        Bad = true;
      }
      if (E.isFileSet() && !E.Object.empty()) {
        error(E.KeyLoc, "'object' names a variable of one ALLOCATE; a 'files' "
                        "entry cannot take it");
        Bad = true;
      }
      if (!HaveKind) {
        error(EL, "entry has no 'kind'");
        Bad = true;
      }
      if (E.MinSize && E.MaxSize && *E.MinSize > *E.MaxSize) {
        error(MaxLoc, "'max-size' (" + formatSize(*E.MaxSize) +
                          ") is below 'min-size' (" + formatSize(*E.MinSize) +
                          "): the window holds no size");
        Bad = true;
      }
      if (!Bad)
        P.Entries.push_back(std::move(E));
    }
  }

  /// `tokens: {"a.c:4:13": malloc#1a2b3c4d, ...}`: the token of the call
  /// each frame names where the plan was made (SourceTokens.h), given to
  /// every entry's frame of that text.
  void readTokens(const YamlNode &V, SMLoc KL) {
    if (!V.isMap()) {
      error(loc(V).isValid() ? loc(V) : KL,
            "'tokens' must be a mapping of frames to their calls' tokens "
            "('\"a.c:4:13\": malloc#1a2b3c4d')");
      return;
    }
    std::map<std::string, std::pair<std::string, SMLoc>> ByFrame;
    for (const YamlPair &Pair : V.Pairs) {
      std::optional<std::string> K = scalar(Pair.Key, loc(Pair.Key), "a frame");
      std::optional<std::string> T =
          scalar(Pair.Value, valueLoc(Pair), "a token");
      if (!K || !T)
        continue;
      std::string Err;
      if (!parseFrame(*K, Err)) {
        error(loc(Pair.Key), "'" + *K + "' is not a frame: " + Err);
        continue;
      }
      if (!isTokenText(*T)) {
        error(valueLoc(Pair), "'" + *T +
                                  "' is not a token: a call's token, '#' "
                                  "and 8 hex digits ('malloc#1a2b3c4d')");
        continue;
      }
      ByFrame[*K] = {*T, loc(Pair.Key)};
    }
    std::set<std::string> Used;
    for (PlanEntry &E : P.Entries)
      for (Frame &F : E.Frames)
        if (auto It = ByFrame.find(F.str()); It != ByFrame.end()) {
          F.Token = It->second.first;
          Used.insert(It->first);
        }
    for (const auto &[K, TL] : ByFrame)
      if (!Used.count(K))
        D.report(TL.second, Severity::Warning,
                 "token for '" + K + "', which no entry's frame is");
  }

  /// `kind: {hbm: 75%, ddr: 25%}` (Split.h): each share's kind where it is
  /// written, the whole at the map.
  bool readSplit(const YamlNode &F, SMLoc FL, Target &T) {
    SMLoc ML = F.Loc.isValid() ? F.Loc : FL;
    bool OK = true;
    for (const YamlPair &Pair : F.Pairs) {
      SMLoc KL = loc(Pair.Key);
      std::optional<std::string> Name = scalar(Pair.Key, KL, "a share's kind");
      std::optional<std::string> Pct =
          scalar(Pair.Value, valueLoc(Pair),
                 "the share of '" + (Name ? *Name : Pair.Key.Text) + "'");
      if (!Name || !Pct) {
        OK = false;
        continue;
      }
      Target One;
      if (!resolveTarget(*Name, KL, One, /*AllowTier=*/true)) {
        OK = false;
        continue;
      }
      SplitPart Part;
      Part.Spelling = One.Spelling;
      std::string Err = parsePercent(*Pct, Part.Percent);
      if (!Err.empty()) {
        error(valueLoc(Pair), Err);
        OK = false;
        continue;
      }
      T.Parts.push_back(std::move(Part));
    }
    if (!OK)
      return false;
    std::string Err = resolveSplit(P, T);
    if (!Err.empty()) {
      error(ML, Err);
      return false;
    }
    return true;
  }

  /// `files: src/*.c` or `files: [src/*.c, lib/io.c]`.
  bool readFiles(const YamlNode &F, SMLoc FL, PlanEntry &E) {
    std::vector<const YamlNode *> Items;
    if (F.isSeq())
      for (const YamlNode &I : F.Items)
        Items.push_back(&I);
    else
      Items.push_back(&F);
    if (Items.empty()) {
      error(F.Loc.isValid() ? F.Loc : FL,
            "'files' must name source files, e.g. [src/*.c, lib/io.c]");
      return false;
    }
    bool OK = true;
    for (const YamlNode *I : Items) {
      auto S = scalar(*I, FL, "file pattern");
      std::string Err = S ? fileGlobError(*S) : "";
      if (!Err.empty())
        error(loc(*I), Err);
      if (!S || !Err.empty()) {
        OK = false;
        continue;
      }
      E.Files.push_back(*S);
    }
    if (!OK)
      return false;
    Frame Placeholder; // line 0: names no call
    E.Frames.push_back(Placeholder);
    P.HasFileSets = true;
    return true;
  }

  bool readKey(const YamlNode &F, SMLoc FL, PlanEntry &E) {
    std::vector<const YamlNode *> Items;
    if (E.IsStack) {
      if (!F.isSeq() || F.Items.empty()) {
        error(F.Loc.isValid() ? F.Loc : FL,
              "'stack' must be a non-empty list of frames, innermost first, "
              "e.g. [util.h:12, solver.c:88]");
        return false;
      }
      for (const YamlNode &I : F.Items)
        Items.push_back(&I);
    } else {
      Items.push_back(&F);
    }
    bool OK = true;
    for (const YamlNode *IP : Items) {
      const YamlNode &I = *IP;
      auto S = scalar(I, FL, "frame");
      if (!S) {
        OK = false;
        continue;
      }
      std::string Err;
      std::optional<Frame> Fr = parseFrame(*S, Err);
      if (!Fr) {
        error(loc(I), Err);
        OK = false;
        continue;
      }
      E.Frames.push_back(std::move(*Fr));
    }
    if (OK && E.Frames.front().Kind == Frame::Form::Unresolved) {
      error(loc(*Items.front()),
            "innermost frame '" + E.Frames.front().str() +
                "' is unresolved; such an entry can never match a call");
      OK = false;
    }
    return OK;
  }
};

//===----------------------------------------------------------------------===//
// FlexMalloc / ecoHMEM line formats
//===----------------------------------------------------------------------===//

/// Allocator names in FlexMalloc files, and the target each becomes. The
/// spelling is the friendly alias so that a memory definitions file merged in
/// later (tiers named hbm/pmem/posix) takes over these entries' budgets.
static const struct {
  const char *Allocator;
  const char *Spelling;
} Allocators[] = {
    {"posix", "posix"},
    {"memkind/hbwmalloc", "hbm"},
    {"memkind/pmem", "pmem"},
};

static const char *allocatorSpelling(StringRef A) {
  for (const auto &X : Allocators)
    if (A == X.Allocator)
      return X.Spelling;
  return nullptr;
}

class LineReader : protected ReaderBase {
protected:
  LineReader(DiagEngine &D, unsigned Buf, Plan &P) : ReaderBase(D, Buf, P) {}

  SMLoc at(StringRef Part) { return SMLoc::getFromPointer(Part.data()); }

  /// Reports and returns false for an unknown allocator name.
  bool checkAllocator(StringRef A) {
    if (allocatorSpelling(A))
      return true;
    std::vector<std::string> Names;
    for (const auto &X : Allocators)
      Names.push_back(X.Allocator);
    std::string Hint = closestName(A, Names);
    error(at(A), "unknown allocator '" + A + "'" +
                     (Hint.empty() ? "; expected posix, memkind/hbwmalloc or "
                                     "memkind/pmem"
                                   : "; did you mean '" + Hint + "'?"));
    return false;
  }

  template <typename Fn> void forEachLine(Fn Visit) {
    StringRef Rest = D.buffer(BufID)->getBuffer();
    while (!Rest.empty()) {
      auto [Line, Tail] = Rest.split('\n');
      Rest = Tail;
      Line = Line.rtrim("\r");
      if (!isUTF8(Line)) {
        error(at(Line), "line is not valid UTF-8 text");
        continue;
      }
      Visit(Line);
    }
  }
};

class LocationsReader : LineReader {
public:
  LocationsReader(DiagEngine &D, unsigned Buf, Plan &P)
      : LineReader(D, Buf, P) {}

  bool read() {
    // FlexMalloc compares basenames case-insensitively.
    P.IgnoreCase = true;
    std::optional<bool> BinaryFile;
    forEachLine([&](StringRef Line) {
      StringRef T = Line.trim();
      if (T.empty() || T.starts_with("#"))
        return;
      size_t At = T.rfind('@');
      if (At == StringRef::npos)
        return; // not an entry; FlexMalloc ignores such lines too
      StringRef Stack = T.take_front(At).rtrim();
      StringRef Alloc = T.drop_front(At + 1).trim();
      if (!checkAllocator(Alloc))
        return;
      PlanEntry E;
      E.Loc = E.KeyLoc = at(T);
      E.KindLoc = at(Alloc);
      E.To.Spelling = allocatorSpelling(Alloc);
      if (Stack.empty()) {
        error(at(T), "entry has no frames before '@'");
        return;
      }
      SmallVector<StringRef, 8> Parts;
      Stack.split(Parts, '>');
      for (StringRef Part : Parts) {
        StringRef F = Part.trim();
        std::string Err;
        auto Fr = parseFrame(F, Err);
        if (!Fr) {
          error(at(F.empty() ? Part : F), Err);
          return;
        }
        if (Fr->Kind != Frame::Form::Unresolved) {
          bool IsBinary = Fr->Kind == Frame::Form::Binary;
          if (!BinaryFile)
            BinaryFile = IsBinary;
          else if (*BinaryFile != IsBinary)
            warning(at(F), "source and binary frames are mixed in one file");
        }
        E.Frames.push_back(std::move(*Fr));
      }
      if (E.Frames.front().Kind == Frame::Form::Unresolved) {
        warning(at(T), "innermost frame is unresolved; entry ignored");
        return;
      }
      E.IsStack = E.Frames.size() > 1;
      const Tier *Ti;
      E.To.Kind = P.resolveKind(E.To.Spelling, &Ti);
      E.To.TheTier = Ti;
      P.Entries.push_back(std::move(E));
    });
    checkDuplicates();
    return !Failed;
  }
};

class MemDefReader : LineReader {
public:
  MemDefReader(DiagEngine &D, unsigned Buf, Plan &P) : LineReader(D, Buf, P) {}

  bool read() {
    static constexpr StringLiteral Header =
        "# Memory configuration for allocator";
    std::optional<StringRef> Current;
    forEachLine([&](StringRef Line) {
      StringRef T = Line.trim();
      if (T.starts_with(Header)) {
        StringRef A = T.drop_front(Header.size()).trim();
        Current =
            checkAllocator(A) ? std::optional<StringRef>(A) : std::nullopt;
        return;
      }
      if (T.empty() || T.starts_with("#"))
        return;
      if (!T.starts_with("Size")) {
        error(at(T), "expected 'Size <number> MBytes' or a '" + Header +
                         " <name>' line");
        return;
      }
      if (!Current) {
        error(at(T),
              "'Size' line without a preceding '" + Header + " <name>' line");
        return;
      }
      StringRef Num = T.drop_front(4).trim();
      std::string Err;
      std::optional<uint64_t> Bytes = parseSize(Num, Err);
      if (!Bytes) {
        error(at(Num), Err);
        return;
      }
      std::string Name = allocatorSpelling(*Current);
      if (P.Tiers.count(Name)) {
        error(at(T), "second size for allocator '" + *Current + "'");
        return;
      }
      auto Ti = std::make_unique<Tier>();
      Ti->Name = Name;
      Ti->KindSpelling = Name;
      Ti->Kind = findKind(Name) ? findKind(Name) : findAlias(Name);
      Ti->Capacity = *Bytes;
      Ti->Loc = at(T);
      P.Tiers[Name] = std::move(Ti);
    });
    return !Failed;
  }
};

/// Detect the format: extension first, then content. Advisor formats are
/// line-oriented and recognisable by their first meaningful line.
PlanFormat detect(StringRef Path, StringRef Text) {
  StringRef Ext = sys::path::extension(Path);
  if (Ext == ".yaml" || Ext == ".yml")
    return PlanFormat::Yaml;
  if (Ext == ".locations")
    return PlanFormat::Locations;
  StringRef Rest = Text;
  while (!Rest.empty()) {
    auto [Line, Tail] = Rest.split('\n');
    Rest = Tail;
    StringRef T = Line.trim();
    if (T.starts_with("# Memory configuration for allocator"))
      return PlanFormat::MemoryDefinitions;
    if (T.empty() || T.starts_with("#"))
      continue;
    if (T.starts_with("Size "))
      return PlanFormat::MemoryDefinitions;
    size_t At = T.rfind('@');
    if (At != StringRef::npos && allocatorSpelling(T.drop_front(At + 1).trim()))
      return PlanFormat::Locations;
    return PlanFormat::Yaml;
  }
  return PlanFormat::Yaml;
}

} // namespace

std::unique_ptr<Plan> parsePlan(std::unique_ptr<MemoryBuffer> Buf,
                                DiagEngine &D,
                                std::optional<PlanFormat> Force) {
  auto P = std::make_unique<Plan>();
  StringRef Text = Buf->getBuffer();
  P->setSource(Buf->getBufferIdentifier(), Text);
  P->Format = Force ? *Force : detect(P->Path, Text);
  unsigned ID = D.addBuffer(std::move(Buf));
  if (Text.trim().empty()) {
    D.report(D.locAt(ID, 0, 0), Severity::Error,
             "plan file is empty; expected 'version: 1' and 'sites:'");
    return nullptr;
  }
  // Binary input: say so once, without echoing the bytes to the terminal.
  for (size_t I = 0, Line = 1, Col = 1; I < Text.size(); ++I, ++Col) {
    unsigned char C = Text[I];
    if (C == '\n') {
      ++Line;
      Col = 0;
    }
    bool Bad = C == 0 || C == 0x7f ||
               (C < 0x20 && C != '\n' && C != '\r' && C != '\t');
    if (!Bad && C >= 0x80) {
      // Check the whole UTF-8 sequence starting here.
      size_t Len = getNumBytesForUTF8(C);
      Bad = Len < 2 || I + Len > Text.size() || !isUTF8(Text.substr(I, Len));
      if (!Bad)
        I += Len - 1;
    }
    if (Bad) {
      D.report((P->Path + ":" + Twine(Line) + ":" + Twine(Col)).str(),
               Severity::Error,
               "not a text file (byte 0x" + utohexstr(C) +
                   "); expected a YAML plan or a FlexMalloc file");
      return nullptr;
    }
  }
  bool OK = false;
  switch (P->Format) {
  case PlanFormat::Yaml:
    OK = YamlReader(D, ID, *P).read();
    break;
  case PlanFormat::Locations:
    OK = LocationsReader(D, ID, *P).read();
    break;
  case PlanFormat::MemoryDefinitions:
    OK = MemDefReader(D, ID, *P).read();
    break;
  }
  if (!OK)
    return nullptr;
  for (size_t I = 0; I < P->Entries.size(); ++I)
    P->Entries[I].Index = unsigned(I);
  return P;
}

std::unique_ptr<Plan> loadPlan(StringRef Path, DiagEngine &D) {
  std::string Err;
  std::unique_ptr<MemoryBuffer> Buf =
      readBounded(Path, InputKind::Plan, Err, /*NullTerminated=*/false);
  if (!Buf) {
    D.report(Path, Severity::Error, "cannot read plan: " + Err);
    return nullptr;
  }
  return parsePlan(std::move(Buf), D);
}

bool mergeMemoryDefinitions(Plan &P, const Plan &Defs, DiagEngine &D) {
  bool OK = true;
  for (const auto &[Name, T] : Defs.Tiers) {
    if (P.Tiers.count(Name)) {
      D.report(T->Loc, Severity::Error,
               "tier '" + Name + "' is already defined by the plan");
      OK = false;
      continue;
    }
    P.Tiers[Name] = std::make_unique<Tier>(*T);
  }
  // Entries written with a name that now is a tier take over its budget.
  for (PlanEntry &E : P.Entries) {
    const Tier *Ti;
    if (E.To.isSplit())
      for (SplitPart &Pt : E.To.Parts) {
        if (const KindInfo *K = P.resolveKind(Pt.Spelling, &Ti)) {
          Pt.Kind = K;
          Pt.TheTier = Ti;
        }
      }
    else if (const KindInfo *K = P.resolveKind(E.To.Spelling, &Ti)) {
      E.To.Kind = K;
      E.To.TheTier = Ti;
    }
  }
  return OK;
}

} // namespace hmplace
