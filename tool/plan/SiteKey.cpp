//===- SiteKey.cpp - allocation site keys and their matching --------------===//
#include "plan/SiteKey.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/Demangle/Demangle.h"
#include "llvm/Support/GlobPattern.h"
#include "llvm/Support/Path.h"

using namespace llvm;

namespace hmplace {

std::string Frame::str() const {
  switch (Kind) {
  case Form::Merged:
    return functionFrameText(File, Function);
  case Form::NoDebug:
    return functionFrameText("", Function);
  case Form::Binary:
    return File + BinarySep + "0x" + utohexstr(Offset, /*LowerCase=*/true);
  case Form::Unresolved:
    return File + ":0";
  case Form::Source:
    break;
  }
  if (Line == 0) // std::allocator
    return File;
  std::string S = File + ":" + std::to_string(Line);
  if (Column)
    S += ":" + std::to_string(Column);
  return S;
}

static bool allDigits(StringRef S) {
  return !S.empty() && llvm::all_of(S, isDigit);
}

/// `file:0 (function)`, \p Open being where ` (` is.
static std::optional<Frame> parseMergedFrame(StringRef T, size_t Open,
                                             std::string &Err) {
  StringRef Head = T.take_front(Open).rtrim();
  StringRef Function = T.drop_front(Open + 2).drop_back().trim();
  // file:line or file:line:col before the function.
  auto [File, Line] = Head.rsplit(':');
  if (File.size() == Head.size() || !allDigits(Line.trim())) {
    Err = ("invalid frame '" + T +
           "'; a function goes with line 0: file:0 (function)")
              .str();
    return std::nullopt;
  }
  bool Column = false;
  if (auto [Outer, L] = File.rsplit(':');
      Outer.size() != File.size() && allDigits(L.trim())) {
    File = Outer;
    Line = L;
    Column = true;
  }
  File = File.trim();
  if (Line.trim() != "0" || Column) {
    Err = ("'" + T + "': a function goes only with line 0 and no column (" +
           File + ":0 (" + Function +
           "), a call the optimizer merged); a call of the source is "
           "file:line or file:line:col")
              .str();
    return std::nullopt;
  }
  Frame F;
  F.Kind = Frame::Form::Merged;
  F.File = File.str();
  F.Function = Function.str();
  if (F.File.empty() || F.Function.empty()) {
    Err = ("missing " + Twine(F.File.empty() ? "file" : "function") +
           " name in '" + T + "'; expected file:0 (function)")
              .str();
    return std::nullopt;
  }
  return F;
}

std::optional<Frame> parseFrame(StringRef Text, std::string &Err) {
  StringRef T = Text.trim();
  Frame F;
  if (T.empty()) {
    Err = "empty frame; expected file:line or file:line:col";
    return std::nullopt;
  }
  // The standard allocator, wherever the C++ library has it: the innermost
  // frame of a container entry (Context.h).
  if (T == "std::allocator") {
    F.File = T.str();
    return F;
  }
  if (T.starts_with("(") && T.ends_with(")")) {
    // The allocation calls of a function without debug info.
    F.Kind = Frame::Form::NoDebug;
    F.Function = T.drop_front().drop_back().trim().str();
    if (F.Function.empty()) {
      Err = ("missing function name in '" + T + "'; expected (function)").str();
      return std::nullopt;
    }
    return F;
  }
  if (T.ends_with(")"))
    if (size_t Open = T.find(" ("); Open != StringRef::npos)
      return parseMergedFrame(T, Open, Err);
  // Source form, parsed from the right so that paths may contain ':'.
  // Blanks around the numbers are ignored, so that what str() prints (no
  // blanks) parses back to the same frame.
  auto [Head, Last] = T.rsplit(':');
  Last = Last.trim();
  if (!Head.empty() && Head.size() != T.size() && allDigits(Last)) {
    StringRef File = Head, LineText = Last, ColText;
    auto [Head2, Mid] = Head.rsplit(':');
    Mid = Mid.trim();
    if (Head2.size() != Head.size() && allDigits(Mid) && !Head2.empty()) {
      File = Head2;
      LineText = Mid;
      ColText = Last;
    }
    unsigned Line = 0, Col = 0;
    if (LineText.getAsInteger(10, Line) ||
        (!ColText.empty() && ColText.getAsInteger(10, Col))) {
      Err = ("line or column out of range in '" + T + "'").str();
      return std::nullopt;
    }
    F.File = File.trim().str();
    if (F.File.empty()) {
      Err = ("missing file name in '" + T + "'").str();
      return std::nullopt;
    }
    if (Line == 0 && !ColText.empty()) {
      // Unresolved frames are written file:0; a column there would not
      // survive printing (file:0 has none) and means nothing.
      Err = ("line 0 with a column in '" + T +
             "'; an unresolved frame is written as name:0")
                .str();
      return std::nullopt;
    }
    if (!ColText.empty() && Col == 0) {
      Err = ("column 0 in '" + T +
             "'; columns start at 1 (omit the column to match any)")
                .str();
      return std::nullopt;
    }
    if (Line == 0) {
      // Advisors write Unresolved:0 / _NOT_Found:0 for frames they could not
      // symbolize; a line 0 never names a real call.
      F.Kind = Frame::Form::Unresolved;
      return F;
    }
    F.Line = Line;
    F.Column = Col;
    return F;
  }
  // Binary form: module!hex (Extrae) or module+hex (newer Extrae).
  size_t Sep = T.find_last_of("!+");
  if (Sep != StringRef::npos && Sep > 0 && Sep + 1 < T.size()) {
    StringRef Hex = T.drop_front(Sep + 1);
    Hex.consume_front("0x") || Hex.consume_front("0X");
    uint64_t Off;
    if (!Hex.empty() && !Hex.getAsInteger(16, Off)) {
      F.Kind = Frame::Form::Binary;
      F.File = T.take_front(Sep).str();
      F.Offset = Off;
      F.BinarySep = T[Sep];
      return F;
    }
  }
  Err = ("invalid frame '" + T +
         "'; expected file:line, file:line:col or module!hexoffset")
            .str();
  return std::nullopt;
}

std::string functionName(StringRef Linkage, StringRef Short) {
  std::string Mangled = Linkage.str(); // the demangler keeps pointers in it
  ItaniumPartialDemangler PD;
  if (PD.partialDemangle(Mangled.c_str()) || !PD.isFunction())
    return Short.str();
  size_t Size = 0;
  char *Name = PD.getFunctionName(nullptr, &Size);
  std::string Out = Name ? Name : Short.str();
  std::free(Name);
  return Out;
}

std::string normalizePath(StringRef Path, StringRef BaseDir) {
  SmallString<256> P(Path);
  if (!sys::path::is_absolute(P) && !BaseDir.empty()) {
    SmallString<256> Abs(BaseDir);
    sys::path::append(Abs, P);
    P = Abs;
  }
  sys::path::remove_dots(P, /*remove_dot_dot=*/true);
  return std::string(P);
}

std::string functionFrameText(StringRef File, StringRef Function) {
  return File.empty() ? ("(" + Function + ")").str()
                      : (File + ":0 (" + Function + ")").str();
}

std::string SourcePos::str() const {
  if (Line == 0 && !Function.empty())
    return functionFrameText(File, Function);
  return File + ":" + std::to_string(Line) + ":" + std::to_string(Column);
}

SourcePos makeSourcePos(StringRef Dir, StringRef File, unsigned Line,
                        unsigned Column) {
  return {normalizePath(File, Dir), Line, Column};
}

const std::string &PathNormalizer::operator()(StringRef Path) {
  auto [It, New] = Cache.try_emplace(Path);
  if (New)
    It->second = normalizePath(Path, Base);
  return It->second;
}

SourcePos makeSourcePos(PathNormalizer &N, StringRef File, unsigned Line,
                        unsigned Column) {
  return {N(File), Line, Column};
}

static bool componentsEqual(StringRef A, StringRef B, bool IgnoreCase) {
  return IgnoreCase ? A.equals_insensitive(B) : A == B;
}

static SmallVector<StringRef, 8> reverseComponents(StringRef Path) {
  SmallVector<StringRef, 8> Out;
  for (auto I = sys::path::rbegin(Path), E = sys::path::rend(Path); I != E; ++I)
    Out.push_back(*I);
  return Out;
}

/// Whether the plan path's components \p Want (innermost first) name the
/// file's \p Have, one by one as \p Same says: all of them when \p Whole,
/// else a suffix. `..` names nothing.
static bool componentsMatch(ArrayRef<StringRef> Want, ArrayRef<StringRef> Have,
                            bool Whole,
                            function_ref<bool(StringRef, StringRef)> Same) {
  if (Want.empty() || Want.size() > Have.size() ||
      (Whole && Want.size() != Have.size()))
    return false;
  for (size_t I = 0; I < Want.size(); ++I)
    if (Want[I] == ".." || !Same(Want[I], Have[I]))
      return false;
  return true;
}

PathMatch matchPath(StringRef PlanPath, StringRef File, StringRef PlanDir,
                    StringRef CompileDir, bool IgnoreCase) {
  if (sys::path::is_absolute(PlanPath))
    return normalizePath(PlanPath, "") == File ? PathMatch::Absolute
                                               : PathMatch::None;
  for (StringRef Base : {PlanDir, CompileDir})
    if (!Base.empty() && normalizePath(PlanPath, Base) == File)
      return PathMatch::Relative;
  // Suffix rule, compared component by component so that `olver.c` does not
  // match `solver.c`. `..` in a relative plan path cannot be a suffix.
  SmallString<256> Clean(PlanPath);
  sys::path::remove_dots(Clean, /*remove_dot_dot=*/false);
  return componentsMatch(reverseComponents(Clean), reverseComponents(File),
                         false,
                         [&](StringRef W, StringRef H) {
                           return componentsEqual(W, H, IgnoreCase);
                         })
             ? PathMatch::Suffix
             : PathMatch::None;
}

std::string sharedTail(StringRef PlanPath, StringRef File, bool IgnoreCase) {
  SmallString<256> Clean(PlanPath);
  sys::path::remove_dots(Clean, /*remove_dot_dot=*/false);
  SmallVector<StringRef, 8> Want = reverseComponents(Clean);
  SmallVector<StringRef, 8> Have = reverseComponents(File);
  std::string Tail;
  for (size_t I = 0; I < Want.size() && I < Have.size(); ++I) {
    if (Want[I] == "/" || !componentsEqual(Want[I], Have[I], IgnoreCase))
      break;
    Tail = I ? (Want[I] + "/" + Tail).str() : Want[I].str();
  }
  return Tail;
}

PathMatch matchPathGlob(StringRef Glob, StringRef File, StringRef PlanDir,
                        StringRef CompileDir, bool IgnoreCase) {
  auto Same = [&](StringRef W, StringRef H) {
    // The pattern's text must outlive it: GlobPattern keeps pieces of it.
    std::string Pat = IgnoreCase ? W.lower() : W.str();
    Expected<GlobPattern> G = GlobPattern::create(Pat);
    if (!G) {
      consumeError(G.takeError());
      return false;
    }
    return G->match(IgnoreCase ? H.lower() : H.str());
  };
  SmallVector<StringRef, 8> Have = reverseComponents(File);
  // The rules of matchPath, each component a glob.
  if (sys::path::is_absolute(Glob)) {
    std::string G = normalizePath(Glob, "");
    return componentsMatch(reverseComponents(G), Have, true, Same)
               ? PathMatch::Absolute
               : PathMatch::None;
  }
  for (StringRef Base : {PlanDir, CompileDir}) {
    if (Base.empty())
      continue;
    std::string G = normalizePath(Glob, Base);
    if (componentsMatch(reverseComponents(G), Have, true, Same))
      return PathMatch::Relative;
  }
  SmallString<256> Clean(Glob);
  sys::path::remove_dots(Clean, /*remove_dot_dot=*/false);
  return componentsMatch(reverseComponents(Clean), Have, false, Same)
             ? PathMatch::Suffix
             : PathMatch::None;
}

std::vector<std::string> FileSet::sameName(StringRef PlanPath) const {
  std::vector<std::string> Files;
  auto [B, E] = ByName.equal_range(key(PlanPath));
  for (auto It = B; It != E; ++It)
    Files.push_back(It->second);
  return Files;
}

std::string FileSet::key(StringRef Path) const {
  StringRef Name = sys::path::filename(Path);
  return IgnoreCase ? Name.lower() : Name.str();
}

void FileSet::add(std::string File) {
  std::string K = key(File);
  ByName.emplace(std::move(K), std::move(File));
}

bool FileSet::namedBy(StringRef PlanPath, StringRef PlanDir) const {
  auto [B, E] = ByName.equal_range(key(PlanPath));
  for (auto It = B; It != E; ++It)
    if (matchPath(PlanPath, It->second, PlanDir, "", IgnoreCase) !=
        PathMatch::None)
      return true;
  return false;
}

} // namespace hmplace
