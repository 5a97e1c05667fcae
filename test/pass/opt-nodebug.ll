; A function built without debug info names no file or line: the entry
; `(xalloc)` places the allocation calls of the function of that name, and
; only those (not another function's); with a caller frame it becomes a
; context site whose callers the run time checks. A subprogram in a unit
; that emits no debug info (clang makes one for -Rpass without -g) counts
; as none. An entry for a function this build does not have is said by
; `hmplan summary`.
; RUN: rm -rf %t && mkdir -p %t && cd %t
; RUN: printf 'version: 1\nsites:\n  - {site: "(xalloc)", kind: hbm}\n  - {site: "(remarked)", kind: ddr}\n  - {site: "(gone)", kind: hbm}\n' > plan.yaml
; RUN: env HMPLACE_PLAN=plan.yaml %opt -load-pass-plugin=%hmplace_plugin -passes=hm-place -pass-remarks=hm-place -S %s -o - 2> remarks | FileCheck %s
; RUN: FileCheck %s --check-prefix=REMARK < remarks
; CHECK-LABEL: define ptr @xalloc
; CHECK: call ptr @hmplace_malloc(i32 3, i64 %n)
; CHECK-LABEL: define ptr @other
; CHECK: call ptr @malloc(i64 %n)
; CHECK-LABEL: define ptr @remarked
; CHECK: call ptr @hmplace_malloc(i32 0, i64 %n)
; REMARK-DAG: remark: {{.*}}placed malloc at (xalloc) in MEMKIND_HBW (plan entry '(xalloc)')
; REMARK-DAG: remark: {{.*}}placed malloc at (remarked) in MEMKIND_REGULAR (plan entry '(remarked)')
; RUN: %hmplan summary plan.yaml 2>&1 | FileCheck %s --check-prefix=SUMMARY
; SUMMARY: warning: plan entry '(gone)' matched nothing in the whole build: no allocation call in a function gone without debug info was compiled with this plan
; SUMMARY: 2 of 3 entries matched
; The same function with a caller frame: decided at run time.
; RUN: printf 'version: 1\nsites:\n  - {stack: ["(xalloc)", main.c:6], kind: hbm}\n' > stack.yaml
; RUN: env HMPLACE_PLAN=stack.yaml HMPLACE_NO_RECORD=1 %opt -load-pass-plugin=%hmplace_plugin -passes=hm-place -S %s -o - | FileCheck %s --check-prefix=STACK
; STACK: @hmplace.site = private constant {{.*}} c"\22(xalloc)\22, (HMPLACE_HBW, \22main.c:6\22), HMPLACE_HEAP\00"
; STACK-LABEL: define ptr @xalloc
; STACK: call ptr @hmplace_malloc(i32 %

define ptr @xalloc(i64 %n) {
  %p = call ptr @malloc(i64 %n)
  ret ptr %p
}
define ptr @other(i64 %n) {
  %p = call ptr @malloc(i64 %n)
  ret ptr %p
}
; A subprogram in a unit that emits no debug info, as -Rpass without -g
; makes: still code without debug info, named by the function.
define ptr @remarked(i64 %n) !dbg !5 {
  %p = call ptr @malloc(i64 %n), !dbg !6
  ret ptr %p
}
declare ptr @malloc(i64)

!llvm.dbg.cu = !{!0}
!llvm.module.flags = !{!2}
!0 = distinct !DICompileUnit(language: DW_LANG_C11, file: !1, emissionKind: NoDebug)
!1 = !DIFile(filename: "xalloc.c", directory: "/src")
!2 = !{i32 2, !"Debug Info Version", i32 3}
!5 = distinct !DISubprogram(name: "remarked", scope: !1, file: !1, line: 3, unit: !0, spFlags: DISPFlagDefinition)
!6 = !DILocation(line: 4, column: 10, scope: !5)
