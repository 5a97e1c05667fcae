//===- FastMem.cpp - plan entries from Fortran placement directives -------===//
//
// Intel's `!DIR$ ATTRIBUTES FASTMEM :: a, b` and Cray's `!DIR$ MEMORY(
// bandwidth) a, b` name the arrays to put in high-bandwidth memory.
// Not a Fortran parser: statements are rebuilt from physical lines (free and
// fixed form, continuations, comments, `;`), and only what decides where a
// directive applies is recognised: program units, derived types, USE, and
// ALLOCATE. A directive names variables of the scoping unit it is in, seen
// by contained procedures and by users of its module; in a derived type it
// names components.
//
//===----------------------------------------------------------------------===//
#include "FastMem.h"
#include "plan/BoundedRead.h"
#include "plan/FortranText.h"

#include "plan/Plan.h"
#include "plan/SiteKey.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/StringSet.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/Regex.h"

#include <map>
#include <set>

using namespace llvm;

namespace hmplace {

namespace {

struct Stmt {
  std::string Text; ///< lower case, comments and continuation marks removed
  unsigned Line = 0, Col = 0;
  bool Directive = false; ///< the text after a !DIR$ / CDIR$ / !DEC$ sentinel
};

struct Directive {
  unsigned Buf, Line, Col;
  std::string Name;
  bool Used = false;
  /// What named it, for notes and messages: "FASTMEM", or Cray's
  /// "MEMORY(bandwidth)".
  std::string Source = "FASTMEM";
  /// An earlier directive for the same name in the same scope (index, or
  /// -1): twins, as FASTMEM and Cray's for one array in two preprocessor
  /// branches, all of which the scan reads; one placement for all.
  int Twin = -1;
};

struct Scope {
  enum Kind { Module, Program, Procedure, Type, Interface, Other } K;
  std::string Name;
  int Parent = -1;
  std::map<std::string, unsigned> Fast; ///< name -> index in Directives
  std::vector<std::string> Uses;
  std::vector<int> Types; ///< derived types defined in this scope
};

struct Allocate {
  unsigned Buf, Line, Col, FileIdx;
  int Scope;
  /// The objects in order; a component as `%name`.
  std::vector<std::string> Objects;
};

/// Split a logical line at `;` outside character literals.
void splitStatements(const std::string &Text, unsigned Line, unsigned Col,
                     std::vector<Stmt> &Out) {
  char Quote = 0;
  size_t Start = 0;
  for (size_t I = 0; I <= Text.size(); ++I) {
    char C = I < Text.size() ? Text[I] : ';';
    if (Quote) {
      if (C == Quote)
        Quote = 0;
      continue;
    }
    if (C == '\'' || C == '"') {
      Quote = C;
      continue;
    }
    if (C != ';')
      continue;
    StringRef Raw = StringRef(Text).slice(Start, I);
    StringRef Part = Raw.trim();
    // The column where the statement starts (exact on its first line,
    // which is where `;` separates statements).
    unsigned At = Col + unsigned(Start + (Raw.size() - Raw.ltrim().size()));
    if (!Part.empty())
      Out.push_back({Part.lower(), Line, At, false});
    Start = I + 1;
  }
}

/// The sentinel's directive text, if \p Line is a directive line.
std::optional<StringRef> directiveText(StringRef Line, bool Fixed) {
  StringRef T = Fixed ? Line : Line.ltrim();
  if (T.size() < 5)
    return std::nullopt;
  StringRef Sentinel = T.take_front(5);
  bool Is = Sentinel.equals_insensitive("!dir$") ||
            Sentinel.equals_insensitive("!dec$");
  if (Fixed)
    Is |= Sentinel.equals_insensitive("cdir$") ||
          Sentinel.equals_insensitive("cdec$") ||
          Sentinel.equals_insensitive("*dir$") ||
          Sentinel.equals_insensitive("*dec$");
  if (!Is)
    return std::nullopt;
  return T.drop_front(5);
}

std::vector<Stmt> statements(StringRef Src, bool Fixed) {
  std::vector<Stmt> Out;
  std::string Cur;
  unsigned CurLine = 0, CurCol = 0;
  bool Pending = false; // free form: the last line ended with &
  auto Flush = [&] {
    if (!Cur.empty())
      splitStatements(Cur, CurLine, CurCol, Out);
    Cur.clear();
  };
  SmallVector<StringRef, 0> Lines;
  Src.split(Lines, '\n');
  for (unsigned L = 0; L < Lines.size(); ++L) {
    StringRef Line = Lines[L].rtrim("\r");
    if (auto D = directiveText(Line, Fixed)) {
      // The statement before it goes first (`type t` above a directive on
      // its first component), unless the directive sits between the lines
      // of one free-form statement.
      if (Fixed || !Pending)
        Flush();
      Stmt S;
      S.Text = withoutComment(*D).trim().lower();
      S.Line = L + 1;
      S.Col = unsigned(Line.size() - Line.ltrim().size()) + 1;
      S.Directive = true;
      Out.push_back(std::move(S));
      continue;
    }
    if (Fixed) {
      if (Line.empty() || strchr("cC*!", Line[0]))
        continue;
      StringRef Body = Line.size() > 6 ? Line.slice(6, 72) : "";
      bool Continues = Line.size() > 5 && Line[5] != ' ' && Line[5] != '0' &&
                       !Line.take_front(5).contains('\t');
      Body = withoutComment(Body);
      if (Continues) {
        Cur += " ";
        Cur += Body.trim().str();
        continue;
      }
      if (Body.trim().empty() && Line.take_front(6).trim().empty())
        continue;
      Flush();
      Cur = Body.trim().str();
      CurLine = L + 1;
      CurCol = 7 + unsigned(Body.size() - Body.ltrim().size());
      continue;
    }
    StringRef Body = withoutComment(Line);
    StringRef T = Body.trim();
    if (T.empty())
      continue; // comment lines may sit between continuation lines
    if (Pending) {
      if (T.starts_with("&"))
        T = T.drop_front();
      Cur += " ";
    } else {
      Flush();
      CurLine = L + 1;
      CurCol = unsigned(Body.size() - Body.ltrim().size()) + 1;
    }
    Pending = T.ends_with("&");
    if (Pending)
      T = T.drop_back();
    Cur += T.str();
  }
  Flush();
  return Out;
}

/// Top-level comma-separated parts of \p S.
SmallVector<StringRef, 4> topLevelParts(StringRef S) {
  SmallVector<StringRef, 4> Parts;
  int Depth = 0;
  size_t Start = 0;
  for (size_t I = 0; I < S.size(); ++I) {
    char C = S[I];
    if (C == '(' || C == '[')
      ++Depth;
    else if (C == ')' || C == ']')
      --Depth;
    else if (C == ',' && Depth == 0) {
      Parts.push_back(S.slice(Start, I).trim());
      Start = I + 1;
    }
  }
  Parts.push_back(S.drop_front(Start).trim());
  return Parts;
}

/// `obj(i)%work(n)` -> `%work`; `a(n)` -> `a`; empty for `stat=ierr`.
std::string allocateObject(StringRef Item) {
  static const Regex Keyword("^[a-z_][a-z0-9_]*[ ]*=[^=]");
  if (Keyword.match(Item))
    return "";
  std::string Flat;
  int Depth = 0;
  for (char C : Item) {
    if (C == '(' || C == '[')
      ++Depth;
    else if (C == ')' || C == ']')
      --Depth;
    else if (Depth == 0 && !isSpace(C))
      Flat += C;
  }
  size_t Pct = Flat.rfind('%');
  return Pct == std::string::npos ? Flat : Flat.substr(Pct);
}

/// The objects of `allocate(...)` in \p S, if \p S holds one.
std::optional<std::vector<std::string>> allocateObjects(StringRef S) {
  static const Regex Alloc("(^|[^a-z0-9_])allocate[ ]*\\(");
  SmallVector<StringRef, 2> M;
  if (!Alloc.match(S, &M))
    return std::nullopt;
  size_t Open = S.find('(', M[0].data() - S.data() + M[1].size());
  int Depth = 0;
  size_t Close = Open;
  for (size_t I = Open; I < S.size(); ++I) {
    if (S[I] == '(')
      ++Depth;
    else if (S[I] == ')' && --Depth == 0) {
      Close = I;
      break;
    }
  }
  if (Close == Open)
    return std::nullopt;
  StringRef Args = S.slice(Open + 1, Close);
  // allocate(real(8) :: a(n)): the type-spec comes first.
  int D = 0;
  for (size_t I = 0; I + 1 < Args.size(); ++I) {
    if (Args[I] == '(')
      ++D;
    else if (Args[I] == ')')
      --D;
    else if (D == 0 && Args[I] == ':' && Args[I + 1] == ':') {
      Args = Args.drop_front(I + 2);
      break;
    }
  }
  std::vector<std::string> Objects;
  for (StringRef Item : topLevelParts(Args)) {
    std::string O = allocateObject(Item);
    if (!O.empty())
      Objects.push_back(O);
  }
  return Objects;
}

// Intel Fortran's general directives and ATTRIBUTES properties: others are
// reported as unknown (a misspelt FASTMEM would otherwise place nothing
// without a word).
const char *const KnownDirectives[] = {"attributes",
                                       "ivdep",
                                       "vector",
                                       "novector",
                                       "simd",
                                       "unroll",
                                       "nounroll",
                                       "loop",
                                       "distribute",
                                       "prefetch",
                                       "noprefetch",
                                       "inline",
                                       "forceinline",
                                       "noinline",
                                       "optimize",
                                       "align",
                                       "assume_aligned",
                                       "assume",
                                       "fixedformlinesize",
                                       "freeform",
                                       "nofreeform",
                                       "if",
                                       "else",
                                       "elseif",
                                       "endif",
                                       "define",
                                       "undefine",
                                       "declare",
                                       "nodeclare",
                                       "ident",
                                       "integer",
                                       "real",
                                       "message",
                                       "objcomment",
                                       "options",
                                       "pack",
                                       "psect",
                                       "strict",
                                       "nostrict",
                                       "block_loop",
                                       "noblock_loop",
                                       "code_align",
                                       "nofusion",
                                       "fma",
                                       "nofma",
                                       "parallel",
                                       "noparallel",
                                       "unroll_and_jam",
                                       "nounroll_and_jam",
                                       "ignore_tkr",
                                       "concurrency_safe",
                                       "memory",
                                       "end"};
const char *const KnownAttributes[] = {"alias",
                                       "align",
                                       "allocatable",
                                       "allow_null",
                                       "c",
                                       "code_align",
                                       "concurrency_safe",
                                       "cvf",
                                       "decorate",
                                       "default",
                                       "dllexport",
                                       "dllimport",
                                       "extern",
                                       "fastmem",
                                       "forceinline",
                                       "ignore_loc",
                                       "inline",
                                       "mixed_str_len_arg",
                                       "no_arg_check",
                                       "noclone",
                                       "noinline",
                                       "nomixed_str_len_arg",
                                       "optimization_parameter",
                                       "reference",
                                       "stdcall",
                                       "value",
                                       "varying",
                                       "vector"};

bool known(StringRef W, ArrayRef<const char *> List) {
  return any_of(List, [&](const char *K) { return W == K; });
}

class Scanner {
public:
  Scanner(DiagEngine &D) : D(D) {}

  bool addFile(const std::string &Path) {
    std::string Err;
    std::unique_ptr<MemoryBuffer> Buf =
        readBounded(Path, InputKind::Source, Err);
    if (!Buf) {
      D.report(Path, Severity::Error, "cannot read: " + Err);
      return false;
    }
    StringRef Src = Buf->getBuffer();
    // A source is text: a NUL byte says it is not (an object file, an
    // archive given by mistake would otherwise scan to no directive).
    if (size_t Nul = Src.find('\0'); Nul != StringRef::npos) {
      D.report(Path, Severity::Error,
               "not a Fortran source: a NUL byte at offset " +
                   std::to_string(Nul) + " (a binary file?)");
      return false;
    }
    bool Fixed = isFixedFormName(Path);
    unsigned Id = D.addBuffer(MemoryBuffer::getMemBufferCopy(Src, Path));
    unsigned FileIdx = Files.size();
    Files.push_back(Path);
    std::vector<int> Stack;
    auto Push = [&](Scope::Kind K, std::string Name) {
      int Parent = Stack.empty() ? -1 : Stack.back();
      Scopes.push_back({K, std::move(Name), Parent, {}, {}, {}});
      Stack.push_back(int(Scopes.size() - 1));
      if (K == Scope::Type && Parent >= 0)
        Scopes[Parent].Types.push_back(Stack.back());
      if (Scopes.back().K == Scope::Module)
        Modules[Scopes.back().Name] = Stack.back();
    };
    auto Top = [&]() -> Scope * {
      return Stack.empty() ? nullptr : &Scopes[Stack.back()];
    };
    // Statements outside any program unit (a directive before the first
    // one, a main program without PROGRAM) live in one scope per file.
    Push(Scope::Other, "");
    for (const Stmt &S : statements(Src, Fixed)) {
      StringRef T = S.Text;
      if (S.Directive) {
        directive(S, Id, *Top());
        continue;
      }
      SmallVector<StringRef, 4> M;
      static const Regex Label("^[0-9]+[ ]+");
      if (Label.match(T, &M))
        T = T.drop_front(M[0].size());
      static const Regex EndBlockData("^end[ ]*block[ ]*data([^a-z0-9_]|$)");
      static const Regex EndOther(
          "^end[ ]*(if|do|select|where|forall|associate|block|critical|enum|"
          "team|interface|file)([^a-z0-9_]|$)");
      static const Regex EndUnit(
          "^end[ ]*(subroutine|function|module|submodule|program|type|"
          "procedure)?([^a-z0-9_(=%]|$)");
      if (!EndBlockData.match(T) && EndOther.match(T, &M)) {
        if (M[1] == "interface" && Top() && Top()->K == Scope::Interface)
          Stack.pop_back();
        continue;
      }
      if (EndBlockData.match(T) || EndUnit.match(T)) {
        if (Stack.size() > 1)
          Stack.pop_back();
        continue;
      }
      static const Regex Interface("^(abstract[ ]+)?interface([^a-z0-9_]|$)");
      if (Interface.match(T)) {
        Push(Scope::Interface, "");
        continue;
      }
      static const Regex ModuleProc("^module[ ]+procedure[ ]+([a-z0-9_]+)");
      if (ModuleProc.match(T, &M)) {
        if (!Top() || Top()->K != Scope::Interface)
          Push(Scope::Procedure, M[1].str());
        continue;
      }
      static const Regex Module("^module[ ]+([a-z0-9_]+)[ ]*$");
      if (Module.match(T, &M)) {
        Push(Scope::Module, M[1].str());
        continue;
      }
      static const Regex Submodule(
          "^submodule[ ]*\\([ ]*([a-z0-9_]+)[^)]*\\)[ ]*([a-z0-9_]+)");
      if (Submodule.match(T, &M)) {
        Push(Scope::Module, M[2].str());
        Top()->Uses.push_back(M[1].str()); // the ancestor is its host
        continue;
      }
      static const Regex Program("^program[ ]+([a-z0-9_]+)");
      if (Program.match(T, &M)) {
        Push(Scope::Program, M[1].str());
        continue;
      }
      static const Regex BlockData("^block[ ]*data([^a-z0-9_]|$)");
      if (BlockData.match(T)) {
        Push(Scope::Other, "");
        continue;
      }
      static const Regex Proc(
          "^(((pure|impure|elemental|recursive|non_recursive|module)[ ]+)|"
          "((integer|real|complex|logical|character|double[ ]*precision|type|"
          "class)[ ]*(\\*[ ]*[0-9]+|\\([^()]*(\\([^()]*\\)[^()]*)*\\))?[ ]*))*"
          "(subroutine|function)[ ]+([a-z0-9_]+)");
      if (Proc.match(T, &M)) {
        Push(Scope::Procedure, M.back().str());
        continue;
      }
      static const Regex TypeDef(
          "^type[ ]*((,[^:]*)?::[ ]*|[ ]+)([a-z0-9_]+)[ ]*(\\(.*\\))?[ ]*$");
      static const Regex TypeIs("^type[ ]+is([^a-z0-9_]|$)");
      if (!TypeIs.match(T) && TypeDef.match(T, &M)) {
        Push(Scope::Type, M[3].str());
        continue;
      }
      static const Regex Use("^use[ ]*(,[ ]*(non_)?intrinsic[ ]*)?(::)?[ ]*"
                             "([a-z0-9_]+)");
      if (Use.match(T, &M)) {
        Top()->Uses.push_back(M[4].str());
        continue;
      }
      if (auto Objects = allocateObjects(T))
        if (!Objects->empty())
          Allocates.push_back(
              {Id, S.Line, S.Col, FileIdx, Stack.back(), std::move(*Objects)});
    }
    return true;
  }

  /// Resolve every ALLOCATE against the directives it sees.
  void resolve(StringRef PlanDir, StringRef Kind, Plan &P) {
    std::set<std::pair<unsigned, unsigned>> Written; // file, line
    // Statements that share a line (`a = ...; allocate(x(n))`) are told
    // apart by column, as HmPlace.so keys them.
    std::map<std::pair<unsigned, unsigned>, unsigned> OnLine;
    for (const Allocate &A : Allocates)
      ++OnLine[{A.FileIdx, A.Line}];
    for (const Allocate &A : Allocates) {
      std::map<std::string, unsigned> Visible = visibleFrom(A.Scope);
      std::vector<std::string> Named, Others;
      std::string Src = "FASTMEM"; // the directive that names them
      for (const std::string &O : A.Objects) {
        auto It = Visible.find(O);
        if (It == Visible.end()) {
          Others.push_back(O);
          continue;
        }
        Named.push_back(O);
        for (int I = int(It->second); I >= 0; I = Dirs[I].Twin)
          Dirs[I].Used = true;
        Src = Dirs[It->second].Source;
      }
      if (Named.empty())
        continue;
      SMLoc Loc = D.locAt(A.Buf, A.Line - 1, A.Col - 1);
      // Some arrays of the statement only: one `object:` entry per named
      // variable (HmPlace.so tells the statement's calls apart by the
      // descriptor's variable); a component cannot be told apart that way.
      bool Partial = !Others.empty();
      if (Partial && any_of(Named, [](const std::string &O) {
            return O.front() == '%';
          })) {
        D.report(Loc, Severity::Warning,
                 "this ALLOCATE allocates " + names(A.Objects) + ", of which " +
                     Src + " names only " + names(Named) +
                     "; a component cannot be placed apart from the other "
                     "arrays of its statement, so no entry is written (put "
                     "it in an ALLOCATE of its own)");
        continue;
      }
      bool Shared = OnLine[{A.FileIdx, A.Line}] > 1;
      if (!Partial && !Shared && !Written.insert({A.FileIdx, A.Line}).second)
        continue;
      Frame F;
      F.File = planPath(Files[A.FileIdx], PlanDir);
      F.Line = A.Line;
      F.Column = Shared ? A.Col : 0;
      for (size_t I = 0; I < (Partial ? Named.size() : 1); ++I) {
        PlanEntry E;
        E.Frames.push_back(F);
        E.To.Spelling = Kind.str();
        if (Partial)
          E.Object = Named[I];
        E.Note = Src + " " + (Partial ? Named[I] : join(Named, ", "));
        P.Entries.push_back(std::move(E));
      }
    }
    for (const Directive &Dir : Dirs)
      if (!Dir.Used)
        D.report(D.locAt(Dir.Buf, Dir.Line - 1, Dir.Col - 1), Severity::Warning,
                 Dir.Source + " names '" + Dir.Name +
                     "', but no ALLOCATE of it was found in the sources "
                     "scanned where the directive applies; nothing placed "
                     "for it");
  }

  unsigned directives() const { return NumDirectives; }

private:
  void directive(const Stmt &S, unsigned Id, Scope &Sc) {
    SMLoc Loc = D.locAt(Id, S.Line - 1, S.Col - 1);
    StringRef T = S.Text;
    StringRef Word =
        T.take_while([](char C) { return isAlnum(C) || C == '_'; });
    if (Word.empty()) {
      D.report(Loc, Severity::Warning, "directive with no name; ignored");
      return;
    }
    if (!known(Word, KnownDirectives)) {
      D.report(Loc, Severity::Warning,
               "unknown directive '" + Word + "'; ignored");
      return;
    }
    if (Word == "memory")
      return crayMemory(S, T.drop_front(Word.size()).ltrim(), Loc, Id, Sc);
    if (Word != "attributes")
      return;
    size_t Colons = T.find("::");
    if (Colons == StringRef::npos) {
      D.report(Loc, Severity::Warning,
               "ATTRIBUTES directive without '::' before the names; ignored");
      return;
    }
    bool Fast = false;
    for (StringRef A : topLevelParts(T.slice(Word.size(), Colons))) {
      StringRef Name = A.take_until([](char C) { return C == ':'; }).trim();
      if (Name.empty())
        continue;
      if (!known(Name, KnownAttributes)) {
        D.report(Loc, Severity::Warning,
                 "unknown ATTRIBUTES property '" + Name + "'" +
                     (Name.edit_distance("fastmem") <= 2
                          ? " (did you mean 'fastmem'?)"
                          : "") +
                     "; ignored");
        continue;
      }
      Fast |= Name == "fastmem";
    }
    if (!Fast)
      return;
    ++NumDirectives;
    for (StringRef N : topLevelParts(T.drop_front(Colons + 2))) {
      if (N.empty())
        continue;
      std::string Key = (Sc.K == Scope::Type ? "%" : "") + N.str();
      Dirs.push_back({Id, S.Line, S.Col, N.str()});
      addToScope(Sc, Key);
    }
  }

  /// The directive just read names \p Key in \p Sc (after any twin).
  void addToScope(Scope &Sc, const std::string &Key) {
    auto [It, New] = Sc.Fast.try_emplace(Key, unsigned(Dirs.size() - 1));
    if (!New) {
      Dirs.back().Twin = int(It->second);
      It->second = unsigned(Dirs.size() - 1);
    }
  }

  /// Cray's `!DIR$ MEMORY(bandwidth) a, b` (\p T after the word): the
  /// same as FASTMEM for the names. Another memory attribute says where
  /// HmPlace has no tier to map it to.
  void crayMemory(const Stmt &S, StringRef T, SMLoc Loc, unsigned Id,
                  Scope &Sc) {
    if (!T.consume_front("(")) {
      D.report(Loc, Severity::Warning,
               "MEMORY directive without '(attribute)'; ignored");
      return;
    }
    size_t Close = T.find(')');
    StringRef Attr = T.take_front(Close).trim();
    if (Close == StringRef::npos || Attr != "bandwidth") {
      D.report(Loc, Severity::Warning,
               "MEMORY(" + Attr +
                   ") directive: only MEMORY(bandwidth) (high-"
                   "bandwidth memory) has a tier here; "
                   "ignored");
      return;
    }
    ++NumDirectives;
    for (StringRef N : topLevelParts(T.drop_front(Close + 1))) {
      N = N.trim();
      if (N.empty())
        continue;
      Dirs.push_back({Id, S.Line, S.Col, N.str(), false, "MEMORY(bandwidth)"});
      addToScope(Sc, (Sc.K == Scope::Type ? "%" : "") + N.str());
    }
  }

  /// The directives an ALLOCATE in scope \p S sees: its scope and hosts,
  /// the modules they use (and those modules' uses), and components of
  /// types defined in any of those.
  std::map<std::string, unsigned> visibleFrom(int S) {
    std::map<std::string, unsigned> V;
    std::set<int> Seen;
    std::vector<int> Work;
    for (int I = S; I >= 0; I = Scopes[I].Parent)
      Work.push_back(I);
    while (!Work.empty()) {
      int I = Work.back();
      Work.pop_back();
      if (!Seen.insert(I).second)
        continue;
      const Scope &Sc = Scopes[I];
      for (const auto &[N, Dir] : Sc.Fast)
        V.insert({N, Dir});
      for (const std::string &U : Sc.Uses) {
        auto M = Modules.find(U);
        if (M != Modules.end())
          Work.push_back(M->second);
      }
      // Types defined here: their component directives.
      Work.insert(Work.end(), Sc.Types.begin(), Sc.Types.end());
    }
    return V;
  }

  static std::string names(ArrayRef<std::string> N) {
    std::string S;
    for (size_t I = 0; I < N.size(); ++I)
      S += (I ? ", " : "") + N[I];
    return S;
  }

  /// Relative to the plan's directory where the file lies under it (the
  /// matcher resolves relative paths there first), else absolute.
  static std::string planPath(StringRef File, StringRef PlanDir) {
    SmallString<256> Cwd;
    sys::fs::current_path(Cwd);
    std::string Abs = normalizePath(File, Cwd);
    StringRef A = Abs;
    if (A.consume_front(PlanDir) && A.consume_front("/"))
      return A.str();
    return Abs;
  }

  DiagEngine &D;
  std::vector<std::string> Files;
  std::vector<Scope> Scopes;
  std::map<std::string, int> Modules;
  std::vector<Directive> Dirs;
  std::vector<Allocate> Allocates;
  unsigned NumDirectives = 0;
};

} // namespace

bool scanFastMem(const std::vector<std::string> &Files, StringRef PlanDir,
                 StringRef Kind, DiagEngine &D, ScanResult &Out) {
  Scanner S(D);
  bool Read = true;
  for (const std::string &F : Files)
    Read &= S.addFile(F);
  if (!Read)
    return false;
  Plan P;
  P.Note = "from FASTMEM and MEMORY(bandwidth) directives (hmplan scan)";
  S.resolve(PlanDir, Kind, P);
  raw_string_ostream OS(Out.PlanText);
  writeYaml(P, OS);
  OS.flush();
  Out.Entries = unsigned(P.Entries.size());
  Out.Directives = S.directives();
  return true;
}

} // namespace hmplace
