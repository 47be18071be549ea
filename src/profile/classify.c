/* Frame kinds from text alone: what folded stacks, perf symbols and DTrace
 * frames tell us about a frame. Kept in one place so every reader agrees. */
#include "profile/profile.h"
#include "util/strview.h"
#include <string.h>

static frame_kind_t tier(char marker)
{
    switch (marker) {
    case '*': return FRAME_JS_TURBOFAN;
    case '+': return FRAME_JS_MAGLEV;
    case '^': return FRAME_JS_BASELINE;
    case '~': return FRAME_JS_INTERPRETED;
    default: return FRAME_JS;
    }
}

/* "path.js:12" / "file.mjs:3:4" / "node:fs:441:22": something that names JS source. */
static int names_js_source(const char *s, size_t n)
{
    return sv_contains(s, n, ".js:") || sv_contains(s, n, ".mjs:") || sv_contains(s, n, ".cjs:") ||
           sv_contains(s, n, ".ts:") || sv_contains(s, n, " node:") || sv_starts(s, n, "node:") ||
           sv_ends(s, n, ".js") || sv_ends(s, n, ".mjs");
}

frame_kind_t profile_classify_name(const char *s, size_t n)
{
    /* flamegraph annotations first: they were decided by the collapser. */
    if (sv_ends(s, n, "_[k]")) return FRAME_KERNEL;
    if (sv_ends(s, n, "_[j]") || sv_ends(s, n, "_[i]") || sv_ends(s, n, "_[w]")) n -= 4;

    if (n == 0) return FRAME_UNKNOWN;
    if (s[0] == '(') {
        if (sv_starts(s, n, "(garbage collector)")) return FRAME_GC;
        if (sv_starts(s, n, "(idle)")) return FRAME_IDLE;
        if (sv_starts(s, n, "(program)")) return FRAME_PROGRAM;
        if (sv_starts(s, n, "(root)")) return FRAME_ROOT;
    }
    /* Every prefix below starts with one of these letters; C++ and C names mostly do not
     * (the perf reader classifies each distinct callchain line: this skips ~25 compares) */
    if (!strchr("JLFESBRHKC", s[0])) goto no_prefix;
    /* V8 perf-map / jitdump names: "JS:*fib /a.js:1:13", older "LazyCompile:~f", "Function:", "Eval:". */
    static const char *const js_prefixes[] = {"JS:", "LazyCompile:", "Function:", "Eval:", "Script:"};
    for (size_t i = 0; i < sizeof js_prefixes / sizeof *js_prefixes; i++) {
        size_t k = strlen(js_prefixes[i]);
        if (sv_starts(s, n, js_prefixes[i])) return n > k ? tier(s[k]) : FRAME_JS;
    }
    static const char *const builtin_prefixes[] = {
        "Builtin:", "BytecodeHandler:", "Builtins_",  "Stub:",        "RegExp:",
        "Handler:", "LoadIC:",          "StoreIC:",   "KeyedLoadIC:", "KeyedStoreIC:",
        "CallIC:",  "BinaryOpIC:",      "CompareIC:", "JSC-Thunk:",   "JSC-InlineCache:"};
    for (size_t i = 0; i < sizeof builtin_prefixes / sizeof *builtin_prefixes; i++)
        if (sv_starts(s, n, builtin_prefixes[i])) return FRAME_BUILTIN;
    if (sv_starts(s, n, "JSC-Baseline:") || sv_starts(s, n, "JSC-LLInt:")) return FRAME_JS_BASELINE;
    if (sv_starts(s, n, "JSC-DFG:") || sv_starts(s, n, "JSC-FTL:")) return FRAME_JS_TURBOFAN;
no_prefix:;

    /* V8's garbage collector in C++: "v8::internal::" followed by one of these */
    static const char *const gc_classes[] = {
        "Heap::",  "Scavenge",       "MarkCompact", "MinorMarkCompact",  "ConcurrentMarking", "IncrementalMarking",
        "Sweeper", "MarkingVisitor", "GCTracer",    "ScavengerCollector"};
    for (const char *at = s, *end = s + n; (at = memmem(at, (size_t)(end - at), "v8::internal::", 14)) != NULL;) {
        at += 14;
        for (size_t i = 0; i < sizeof gc_classes / sizeof *gc_classes; i++)
            if (sv_starts(at, (size_t)(end - at), gc_classes[i])) return FRAME_GC;
    }
    if (sv_starts(s, n, "[unknown]") || (s[0] == '[' && sv_contains(s, n, "unknown"))) return FRAME_UNKNOWN;
    if (sv_starts(s, n, "[perf-") || sv_starts(s, n, "[jitted-")) return FRAME_JS;
    /* DTrace jstack / ustack helper output and plain "fn file.js:line" frames. */
    if (sv_starts(s, n, ">> ") || sv_starts(s, n, "<< ")) return sv_starts(s, n, ">> ") ? FRAME_JS : FRAME_BUILTIN;
    if (!sv_contains(s, n, "::") && names_js_source(s, n)) return FRAME_JS;
    return FRAME_NATIVE;
}
