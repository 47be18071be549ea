/* Knowledge of V8's heap and stack, driven by the node binary's v8dbg_* metadata.
 * Everything read from the target is untrusted: each read is checked, each walk bounded,
 * and a failure is an error return, never a crash. v8/ never prints: it returns data
 * (strings go into a caller's buf_t) and cli/ formats it.
 * CONTRACT (owned by v8/, consumed by cli/ and the live sampler). */
#ifndef V8_V8_H
#define V8_V8_H
#include "target/target.h"
#include "util/buf.h"
#include <stddef.h>
#include <stdint.h>

typedef struct v8 v8_t;

/* Loads the metadata and resolves every layout constant. NULL (and a message naming the
 * executable and what is missing) when the target's executable is not a supported node. */
v8_t *v8_open(target_t *t);
void v8_close(v8_t *v);
/* v8_open again on the same target after its memory changed (a new frozen copy of the same
 * process: watch --heap's next census): what came from the executable (metadata, layout, type
 * names) moves over from old, what was read from memory is dropped with old, which is closed. */
v8_t *v8_renew(v8_t *old);
/* The same from given constants (sorted by name, as v8_metadata_load returns them) and a V8
 * version, for a target without a node binary: the fuzz targets use it. */
#include "v8/metadata.h"
v8_t *v8_open_with_metadata(target_t *t, const v8_constant_t *items, size_t n, int major, int minor);
target_t *v8_target(const v8_t *v);
/* "11.3.244.8" */
const char *v8_version(const v8_t *v);
/* Which build V8 was read from, for messages: "V8 10.2.154.26 from /usr/lib/x86_64-linux-gnu/libnode.so.108
 * (build id ec9f...)", the object target_v8_object names; in buf (cap bytes), returned. */
const char *v8_build(v8_t *v, char *buf, size_t cap);
/* Which facts nodescope has for this V8 (`nodescope --version`): the entry of v8/layout.c's
 * table of facts the metadata lacks that applies, by the V8 version it was read off; fit 0 when it
 * is this V8's own, 1 when this V8 is newer than the table (the newest entry's facts taken: steer
 * names what they steer, risk what may be wrong, as the warning says), -1 older than the oldest;
 * the table's versions (a hidden entry left out); the frame and layout facts in use, by name. */
#define V8_FACTS_MAX 24
#define V8_FACTS_TABLE_MAX 16
typedef struct {
    int major, minor, fit;
    const char *steer, *risk;
    size_t nmetadata; /* v8dbg_ constants read */
    int table[V8_FACTS_TABLE_MAX][2];
    size_t ntable;
    struct {
        const char *name;
        int64_t value;
    } facts[V8_FACTS_MAX];
    size_t nfacts;
} v8_facts_t;
int v8_facts(const v8_t *v, v8_facts_t *out);

/* ---- tagged values ---- */
int v8_is_smi(const v8_t *v, uint64_t value);
int64_t v8_smi_value(const v8_t *v, uint64_t value);
int v8_is_heap_object(const v8_t *v, uint64_t value);
/* The instance type of a heap object (reads its map): 0 on success, -1 when unreadable. */
int v8_instance_type(v8_t *v, uint64_t value, int *type);
/* The instance type of the objects a Map describes (map: a Map). */
int v8_map_instances_type(v8_t *v, uint64_t map, int *type);
/* "JS_FUNCTION_TYPE" and the like, from the metadata; NULL when the metadata has no name. */
const char *v8_type_name(const v8_t *v, int type);
/* A friendlier class name for a type ("JSFunction", "SharedFunctionInfo"), or NULL. */
const char *v8_class_name(const v8_t *v, int type);
/* Reads the tagged field at byte offset off of heap object obj (offset from the untagged start). */
int v8_read_field(v8_t *v, uint64_t obj, int64_t off, uint64_t *out);
/* Bounds the field reads from now on to n (0: no bound); once spent, every read fails, which
 * ends any walk. For printers that follow a corrupt heap's references (postmortem/inspect.c). */
void v8_limit_reads(v8_t *v, int64_t n);
int v8_reads_exhausted(const v8_t *v);
int v8_is_string_type(const v8_t *v, int type);
/* 1 when an object of this instance type is an internalized string (one the string table holds) */
int v8_is_internalized_string_type(const v8_t *v, int type);
/* 1 when code (an object of instance type type) is a Code object of one of V8's builtins */
int v8_code_is_builtin(v8_t *v, uint64_t code, int type);
/* Raw bytes of heap object obj at byte offset off from its untagged start (the tag comes from the
 * layout): fields the metadata types as char, int, double, Address... 0 on success. */
int v8_read_bytes(v8_t *v, uint64_t obj, int64_t off, void *buf, size_t n);
/* FixedArray-shaped objects (a Smi length, then tagged slots): length and slot i, bounds-checked. */
int v8_fixed_array_length(v8_t *v, uint64_t array, int64_t *len);
int v8_fixed_array_get(v8_t *v, uint64_t array, int64_t index, uint64_t *out);
/* The oddball kind of a value (V8_ODDBALL_*, the hole included), -1 when it is no oddball. */
int v8_oddball_kind(v8_t *v, uint64_t value);
enum {
    V8_ODDBALL_FALSE,
    V8_ODDBALL_TRUE,
    V8_ODDBALL_HOLE,
    V8_ODDBALL_NULL,
    V8_ODDBALL_UNDEFINED,
    V8_ODDBALL_UNINITIALIZED,
    V8_ODDBALL_EXCEPTION,
    V8_ODDBALL_ARGS_MARKER,
    V8_ODDBALL_OTHER,
    V8_ODDBALL_N
};
/* 1 for the hole (an absent element or deleted entry), decided by its type or oddball kind. */
int v8_is_hole(v8_t *v, uint64_t value);
/* "Symbol(desc)" appended to out; -1 when value is not a Symbol. */
int v8_symbol_text(v8_t *v, uint64_t value, buf_t *out);
/* A number as JavaScript's Number.prototype.toString prints it (1e+21, 0.1, 123456789012345680000). */
void v8_put_number(buf_t *out, double d);

/* ---- strings ---- */
/* Appends the string's characters as UTF-8 (lone surrogates as U+FFFD), at most max_bytes of
 * them (then *truncated = 1). Handles sequential, cons, sliced, thin and external strings.
 * 0 on success, -1 when value is not a readable string (out may hold a partial prefix). */
int v8_string(v8_t *v, uint64_t value, buf_t *out, size_t max_bytes, int *truncated);
/* A string's representation for `str -v`: "SeqOneByteString", "ConsString", ...; length in chars. */
int v8_string_info(v8_t *v, uint64_t value, const char **repr, int64_t *length);

/* ---- functions and scripts ---- */
typedef struct {
    uint64_t function, shared, script;
    char *name;            /* the function's own name, "" for anonymous */
    char *inferred;        /* the name V8 inferred ("Module._compile"), or NULL */
    char *script_name;     /* file or url; NULL when the function has no script (builtins) */
    int script_type;       /* V8's Script::Type */
    char *eval_origin;     /* code from eval: where eval was called, "fn (file:line:col)"; else NULL */
    int64_t start_pos;     /* definition: character offset in the script, -1 unknown */
    int def_line, def_col; /* 1-based definition site, 0 when unknown */
    int param_count;       /* formal parameters, without the receiver; -1 unknown */
} v8_function_t;
int v8_function_info(v8_t *v, uint64_t jsfunction, v8_function_t *out);
/* The name v8_function_display_name gives it, appended to b (without its script: nothing is read
 * of the script's source, as v8_function_info does for the definition's line); -1 when none. */
int v8_function_name(v8_t *v, uint64_t jsfunction, buf_t *b);
/* The same from a SharedFunctionInfo (function = 0): what inlined frames have. */
int v8_shared_info(v8_t *v, uint64_t shared, v8_function_t *out);
void v8_function_free(v8_function_t *f);
/* The name a function is shown by: its own, else the one V8 inferred, else fallback (which may
 * be NULL: anonymous). */
const char *v8_function_display_name(const v8_function_t *f, const char *fallback);
/* Character offset -> 1-based line and column in the script's source. */
int v8_script_line_col(v8_t *v, uint64_t script, int64_t pos, int *line, int *col);

/* ---- the stack ---- */
typedef enum {
    V8_FRAME_NATIVE,      /* C/C++ code with a symbol (or none: unknown) */
    V8_FRAME_JS,          /* a JavaScript function */
    V8_FRAME_V8_INTERNAL, /* typed V8 frames: entry, exit, construct, stub, builtin, ... */
    V8_FRAME_API,         /* the exit frame of a call from JS into C++ through V8's API (a
                               FunctionTemplate's callback: node's bindings, such as `writev`):
                               function and shared name the API function, as V8's profiler does */
} v8_frame_kind_t;

typedef enum {
    V8_TIER_NONE,
    V8_TIER_INTERPRETED,
    V8_TIER_BASELINE,
    V8_TIER_MAGLEV,
    V8_TIER_TURBOFAN,
    V8_TIER_BUILTIN,
} v8_tier_t;

typedef struct {
    v8_frame_kind_t kind;
    uint64_t pc, sp, fp;
    /* V8_FRAME_V8_INTERNAL, V8_FRAME_API: the frame type name ("EntryFrame", "ConstructFrame", ...) */
    const char *frame_type;
    /* V8_FRAME_JS (function and shared: V8_FRAME_API too) */
    v8_tier_t tier;
    uint64_t function;          /* the JSFunction; 0 for a function inlined into its caller's code (or an
                                 API function known by its FunctionTemplateInfo only) */
    uint64_t shared;            /* its SharedFunctionInfo */
    int inlined;                /* 1: no frame of its own, inlined into the optimized code of the next frame */
    int argc;                   /* arguments actually passed (without the receiver), -1 unknown */
    uint64_t args_addr;         /* address of the receiver slot; argument i is at args_addr + 8*(i+1) */
    int line, col;              /* 1-based position executing in this frame, 0 when unknown */
    int position_is_definition; /* 1 when line:col fell back to the definition site */
    int is_construct;           /* called with `new` (a ConstructFrame is its caller) */
    int moved;                  /* the function read from the frame's slot is not the one whose code runs
                                 there (a live process: read after a GC moved it); see v8_frame_current */
    int stable;                 /* the function was found from the code the pc is in or the frame's
                                 bytecode, which a scavenge does not move under a live read */
    int adopted;                /* stable, against the frame's function slot, which names another
                                 function or none now (function is then 0): either a scavenge moved
                                 the function (the code is right) or a full GC freed the code and
                                 put another's there (the slot was right). Only a caller that knows
                                 no full GC ran since the stack was copied may trust the name */
    int return_address;         /* pc is a return address (every frame but the interrupted one): the
                                 call in progress is at pc - 1 (symbols and positions look there) */
} v8_frame_t;

/* Walks a thread's stack: native frames from the target's unwinder, JS frames decoded.
 * Returns the number of frames written (at most max). */
size_t v8_stack(v8_t *v, size_t thread_index, v8_frame_t *frames, size_t max);
/* 1 when the main thread was in a garbage collection at the stop (its heap half-moved) */
int v8_in_gc(v8_t *v);
/* The same from physical frames unwound by someone else (a sampler's frame-pointer walk over a
 * perf_event stack copy): native[0] is the interrupted frame (its pc is not a return address),
 * regs its registers in the target's arch order (target_arch; NULL when unknown: a frame caught in a
 * function's prologue or epilogue is then not named). */
size_t v8_stack_frames(v8_t *v, const target_frame_t *native, size_t n, const uint64_t *regs, v8_frame_t *frames,
                       size_t max);
/* Decodes one physical frame f (kind, pc, sp, fp, return_address set; not named native code)
 * into out[0..room): a typed V8 frame, a JS frame (several when optimized code inlined functions,
 * innermost first), or f unchanged when it is none of V8's. Returns how many frames it wrote. */
size_t v8_decode_frame(v8_t *v, const v8_frame_t *f, v8_frame_t *out, size_t room);

/* For a live process read after the sample was taken (the sampler): whether the JSFunction in
 * JS frame f's slot is still the function that frame runs. The frame's context slot (stack copy,
 * sample time) must lead to that function's context (heap, now), and optimized code must have been
 * compiled for that function; a GC that moved the function in
 * between leaves another object, or another function, at its old address. 1 yes, 0 no (the
 * frame's name would be wrong), -1 cannot tell (not a frame with its own function). */
int v8_frame_current(v8_t *v, const v8_frame_t *f);

/* Everything shown about one frame, gathered once for every output (text, JSON, a profile). */
typedef struct {
    /* the native symbol at the frame's pc (pc - 1 for a return address), else NULL */
    const char *symbol;        /* as in the ELF (mangled); borrowed from the target */
    uint64_t symbol_offset;    /* pc - the symbol's start */
    const char *symbol_module; /* base name of the ELF the symbol came from */
    /* the mapped file the pc is in and the pc's offset in it (what addr2line takes); NULL for
       anonymous memory (JIT code) */
    const char *module;
    uint64_t module_offset;
    int internal; /* V8's plumbing: a typed frame, or an embedded builtin that runs no JS */
    /* JS frames */
    int has_function;   /* fn is filled */
    v8_function_t fn;   /* the function (its SharedFunctionInfo's facts) */
    char *display_name; /* as V8's stack traces name it (v8_frame_name), without "new " */
    /* the position (f->line, f->col) and the tier (f->tier) are the frame's own */
} v8_frame_record_t;
/* Fills r for frame f. v may be NULL (no V8 metadata: symbol and module only). Free with
 * v8_frame_record_free. */
void v8_frame_record(target_t *t, v8_t *v, const v8_frame_t *f, v8_frame_record_t *r);
/* The same without display_name (NULL): V8's own names only. The display name of an anonymous
 * method searches its receiver's properties for it, which a sampler cannot afford per sample. */
void v8_frame_record_facts(target_t *t, v8_t *v, const v8_frame_t *f, v8_frame_record_t *r);
void v8_frame_record_free(v8_frame_record_t *r);
const char *v8_tier_name(v8_tier_t tier);
/* Reads argument i (-1 = the receiver, `this`) of a JS frame. */
int v8_frame_arg(v8_t *v, const v8_frame_t *f, int i, uint64_t *out);
/* How many arguments a JS frame has: those actually passed when the frame records it, else the
 * function's formal count (fi may be NULL: 0); none for an inlined frame. */
int v8_frame_argc(const v8_frame_t *f, const v8_function_t *fi);
/* The frame's function as V8's stack traces name it, appended to out: the name (static, else the
 * one given at run time: "[Symbol.iterator]"), else the inferred name; for an anonymous method the
 * receiver's type and the property holding the function ("Module._compile"), or
 * "Type.<anonymous>" when no property does; else "(anonymous)". Named methods are not prefixed
 * with their receiver's type, unlike V8. */
void v8_frame_name(v8_t *v, const v8_frame_t *f, const v8_function_t *fi, buf_t *out);

/* ---- the exception ---- */
typedef struct {
    uint64_t value;  /* the value thrown */
    const char *how; /* "thrown", "rethrown", "uncaught (passed to the uncaughtException handler)" */
    int has_where;   /* where: the JS frame that threw it */
    v8_frame_t where;
    /* without that frame (the stack unwound: an uncaught exception as node gets it), where its
       message says it was thrown: its script's name and the 1-based line and column; line 0: unknown */
    char file[1024];
    int line, col;
} v8_exception_t;
/* The exception thread (index) is throwing when V8 or Node aborted on it: found on the stack only
 * where it provably is (v8/exception.c), never guessed. 0, or -1 when there is none. */
int v8_thrown_exception(v8_t *v, size_t thread, v8_exception_t *out);
/* One frame an Error captured when it was made (V8 formats .stack only when it is first read: an
 * exception caught as it is thrown has not been). */
typedef struct {
    uint64_t function;
    const char *name; /* as V8's stack traces name it: "Type.fn [as method]", "fn"; "" unnamed */
    const char *file; /* its script's name, or NULL */
    int line, col;    /* 1-based; 0 when unknown */
    int is_async, is_constructor;
} v8_callsite_t;
typedef int (*v8_callsite_cb)(void *ctx, const v8_callsite_t *c);
/* The frames error captured, outermost last (as .stack lists them): -1 when it holds none that
 * are not formatted already (a formatted stack is the value's own "stack" string). */
int v8_error_callsites(v8_t *v, uint64_t error, v8_callsite_cb cb, void *ctx);

/* ---- values ---- */
/* A short, one-line description of any tagged value: 42, 1.5, "abc", true, undefined,
 * <Object: Widget>, <Buffer 16 bytes>, <Array 3>, <Function: name>, ... */
void v8_describe(v8_t *v, uint64_t value, buf_t *out);
/* The constructor name of a JS object as V8 finds it ("Widget", "Buffer"), appended to out;
 * -1 if none found. */
int v8_constructor_name(v8_t *v, uint64_t obj, buf_t *out);
/* What v8_constructor_name reads of an object's map, as three words: its prototype, its
 * constructor (or back pointer) and its type and bit fields. A map at the same address with the
 * same words in a later copy of the heap names its objects the same (watch --heap's censuses keep
 * the names of the maps they saw). -1 when unreadable. */
int v8_map_identity(v8_t *v, uint64_t map, uint64_t id[3]);

/* ---- JavaScript values, one at a time (print, constructor, buffer) ---- */
typedef enum {
    V8_V_UNREADABLE,
    V8_V_NUMBER,
    V8_V_STRING,
    V8_V_BOOLEAN,
    V8_V_NULL,
    V8_V_UNDEFINED,
    V8_V_HOLE,
    V8_V_BIGINT,
    V8_V_SYMBOL,
    V8_V_OBJECT,
    V8_V_ARRAY,
    V8_V_FUNCTION,
    V8_V_DATE,
    V8_V_REGEXP,
    V8_V_ERROR,
    V8_V_MAP,
    V8_V_SET,
    V8_V_WEAKMAP,
    V8_V_WEAKSET,
    V8_V_PROMISE,
    V8_V_PROXY,
    V8_V_ARRAY_BUFFER,
    V8_V_TYPED_ARRAY,
    V8_V_DATA_VIEW,
    V8_V_BOXED,
    V8_V_GLOBAL,
    V8_V_INTERNAL, /* INTERNAL: V8's own objects (maps, contexts, ...) */
} v8_value_kind_t;
enum { V8_PROMISE_PENDING, V8_PROMISE_FULFILLED, V8_PROMISE_REJECTED };
typedef struct {
    v8_value_kind_t kind;
    int type;       /* instance type, -1 for a Smi */
    double number;  /* NUMBER; DATE: the time value (NaN: invalid date) */
    int boolean;    /* BOOLEAN */
    int64_t length; /* ARRAY: its length; MAP, SET: entries; ARRAY_BUFFER, views: bytes */
    int64_t offset; /* views: byte offset in their buffer */
    int64_t flags;  /* REGEXP: V8's flag bits (g 1, i 2, m 4, y 8, u 16, s 32, d 128, v 256) */
    int state;      /* PROMISE: V8_PROMISE_*, -1 unreadable */
    uint64_t data;  /* ARRAY_BUFFER, views: address of the first byte (0 when none) */
    /* REGEXP: source string; MAP, SET: the table; PROMISE: the result; PROXY: target (b: handler);
       views: the buffer; ARRAY_BUFFER: itself; BOXED: the primitive; FUNCTION: a bound target;
       GLOBAL: the global object (a global proxy's is its hidden prototype) */
    uint64_t a, b;
} v8_value_t;
/* What a tagged value is: 0, or -1 (kind V8_V_UNREADABLE) when its memory is not readable. */
int v8_value(v8_t *v, uint64_t value, v8_value_t *out);
/* A Number (Smi or HeapNumber) as a double; -1 when value is no Number. */
int v8_number_value(v8_t *v, uint64_t value, double *d);
/* The entries of a Map's or Set's table in insertion order (value 0 for a Set), at most limit;
 * cb returns nonzero to stop. */
typedef int (*v8_entry_cb)(void *ctx, uint64_t key, uint64_t value);
int v8_collection_entries(v8_t *v, uint64_t table, int is_map, v8_entry_cb cb, void *ctx, int64_t limit);
/* A BigInt in decimal ("-123"), appended to out; -1 when value is none (or absurdly long). */
int v8_bigint_text(v8_t *v, uint64_t value, buf_t *out);
/* The UTF-16 code units of a string, one call each (for exact JSON escapes); 0 on success. */
int v8_string_units(v8_t *v, uint64_t value, void (*cb)(void *ctx, uint32_t unit), void *ctx);
/* The native context a context belongs to (the end of its `previous` chain), and its global object. */
int v8_native_context(v8_t *v, uint64_t context, uint64_t *out);
int v8_context_global(v8_t *v, uint64_t native_context, uint64_t *out);
/* The main context's global object (what `globalThis` is in the program's own code): from the
 * native context of a JS frame on the main thread's stack; -1 when none is found. The one place a
 * fallback for cores without JS frames (a heap scan for the JSGlobalObject) goes. */
int v8_global_object(v8_t *v, uint64_t *out);
/* An own property by key: an element for an index ("3"), else a named property. 0 and *out set
 * (*is_double and *d for an unboxed double element); -1 absent; -2 an accessor (needs its getter). */
int v8_own_property(v8_t *v, uint64_t obj, const char *key, uint64_t *out, int *is_double, double *d);

/* The getter of an AccessorPair (what v8_own_property gives for an accessor), when it is JavaScript. */
int v8_accessor_getter(v8_t *v, uint64_t pair, uint64_t *getter);
/* The slots of a function's own context after its header, cb(ctx, slot index, value). */
int v8_context_slots(v8_t *v, uint64_t fn, v8_entry_cb cb, void *ctx);
/* A context's local variables, named by its ScopeInfo: cb(ctx, name, slot, value) for each;
 * a name is "[slot]" when the ScopeInfo keeps names in a hash table. -1 when not a context. */
typedef int (*v8_local_cb)(void *ctx, const char *name, int64_t slot, uint64_t value);
int v8_context_locals(v8_t *v, uint64_t context, v8_local_cb cb, void *ctx);
/* The enclosing context (slot 1), and a function's own context; -1 when there is none. */
int v8_context_previous(v8_t *v, uint64_t context, uint64_t *out);
int v8_function_context(v8_t *v, uint64_t fn, uint64_t *out);
/* A Script's source string (external for Node's built-in modules); -1 when it has none. */
int v8_script_source(v8_t *v, uint64_t script, uint64_t *source);
/* The object's prototype (its map's); -1 when it has none (null) or it is unreadable. */
int v8_prototype(v8_t *v, uint64_t obj, uint64_t *out);
/* Bytes at a raw address v8_value gave (a buffer's backing store): 0 on success. */
int v8_read_memory(v8_t *v, uint64_t addr, void *buf, size_t n);

/* ---- objects ---- */
typedef struct {
    const char *key; /* property name (UTF-8, a symbol as Symbol(desc)) or element index */
    uint64_t value;  /* tagged value (raw bits for a double element) */
    int is_double;   /* an unboxed double element: d holds it */
    double d;
    int is_accessor; /* value is an AccessorPair (getter/setter) */
    int is_symbol;   /* the key is a Symbol */
    int enumerable;  /* not DONT_ENUM (what Object.keys and JSON.stringify see) */
    int is_private;  /* the key is a private symbol (V8's internal slots, never seen by JS) */
} v8_property_t;
/* Return nonzero to stop the walk. */
typedef int (*v8_property_cb)(void *ctx, const v8_property_t *p);
/* Own named properties in property order: descriptor order (fast mode), enumeration index
 * (dictionary mode, and the global object's PropertyCells). */
int v8_object_properties(v8_t *v, uint64_t obj, v8_property_cb cb, void *ctx);
/* Own elements (array indices), holes skipped, at most limit of them (a JSArray: up to its length). */
int v8_object_elements(v8_t *v, uint64_t obj, v8_property_cb cb, void *ctx, int64_t limit);
/* An own data property by name; 0 and *out set when found. */
int v8_object_get(v8_t *v, uint64_t obj, const char *name, uint64_t *out);
/* v8_object_get for many objects of one map (find over millions of instances): the descriptor
 * lookup once per map, then one field read per object; the same answers. */
typedef struct {
    int kind;       /* V8_PLAN_* */
    int64_t index;  /* FIELD: the field index */
    int64_t offset; /* FIELD: its byte offset in the object when in-object, else -1 */
    uint64_t value; /* CONSTANT: the descriptor's value */
} v8_property_plan_t;
enum { V8_PLAN_GENERIC, V8_PLAN_ABSENT, V8_PLAN_FIELD, V8_PLAN_CONSTANT };
void v8_property_plan(v8_t *v, uint64_t map, const char *name, v8_property_plan_t *plan);
/* obj's value by plan (obj's map must be the plan's); GENERIC falls back to v8_object_get. */
int v8_property_plan_get(v8_t *v, uint64_t obj, uint64_t map, const char *name, const v8_property_plan_t *plan,
                         uint64_t *out);

/* ---- classes (for v8print) ---- */
typedef struct {
    const char *class_name; /* the class that declares the field (the object's or a parent's) */
    char *field, *type;     /* "shared", "SharedFunctionInfo" (the metadata's type name) */
    int64_t offset;         /* from the untagged object start */
} v8_field_t;
/* The object's class (from its instance type; NULL if unknown) and every field the metadata lists
 * for that class and its parents, sorted by offset. Free with v8_fields_free. */
int v8_object_fields(v8_t *v, uint64_t obj, const char **class_name, v8_field_t **fields, size_t *n);
void v8_fields_free(v8_field_t *fields, size_t n);

/* ---- embedder fields (v8/embedder.c) ---- */
/* An API object's embedder ("internal") fields, as V8's JSObject::GetEmbedderFieldCount counts them:
 * the words between its header and its first in-object property. The count (and the byte offset of
 * field 0 when first_offset is not NULL), or -1 when obj is not an API object. */
int v8_embedder_field_count(v8_t *v, uint64_t obj, int64_t *first_offset);
typedef enum { V8_EMBEDDER_SMI, V8_EMBEDDER_TAGGED, V8_EMBEDDER_POINTER } v8_embedder_kind_t;
typedef struct {
    int64_t offset;          /* from the object's untagged start */
    uint64_t raw;            /* the word as stored */
    v8_embedder_kind_t kind; /* a Smi, a V8 heap object, or an aligned pointer the embedder set */
    uint64_t vtable;         /* a POINTER's first word when readable (a C++ object's vtable), else 0 */
} v8_embedder_value_t;
/* Field index of API object obj; -1 when obj is not an API object or index is out of range. */
int v8_embedder_field(v8_t *v, uint64_t obj, int index, v8_embedder_value_t *out);

/* ---- the heap ---- */
/* Every object on V8's heap (the main isolate's), found from the 256 KiB-aligned page headers in
 * the target's anonymous memory and walked object by object (v8/heap_walk.c). Bounded on corrupt
 * pages: a page that cannot be parsed is resynced at the next map or abandoned. */
typedef struct v8_heap v8_heap_t;
typedef struct {
    uint64_t addr;              /* tagged address */
    uint64_t map;               /* tagged address of its map */
    int type;                   /* instance type */
    uint64_t size;              /* shallow size in bytes; 0 when V8's layout for the type is not known here */
    int large;                  /* alone on a large-object page */
    int prototype;              /* its map is a prototype map: the object is some function's .prototype
                           (or another object's prototype), not an instance */
    const unsigned char *bytes; /* its bytes as the walk read them (valid until its page is done) */
    uint64_t avail;             /* how many of them: to the end of the page's area (or of the
                                   header read of a large page) */
    uint64_t extent;            /* size 0: bytes to where the walk found the next object (free space
                                   and fillers too, which are no objects of their own); else 0 */
} v8_heap_object_t;
typedef struct {
    size_t pages, skipped_pages, unreadable_pages, objects, resyncs; /* (pages page_skip takes: its own count) */
    uint64_t bytes;
} v8_heap_stats_t;
/* Return nonzero to stop the walk. */
typedef int (*v8_heap_cb)(void *ctx, const v8_heap_object_t *o);
/* Finds the pages (cheap: one header read per 256 KiB). Never NULL; v8_heap_found says whether a
 * heap was found. */
v8_heap_t *v8_heap_open(v8_t *v);
/* The same, looking for pages only in [start, end) (a target without a mapping list: fuzzing). */
v8_heap_t *v8_heap_open_range(v8_t *v, uint64_t start, uint64_t end);
void v8_heap_close(v8_heap_t *h);
int v8_heap_found(const v8_heap_t *h);
size_t v8_heap_page_count(const v8_heap_t *h);
/* Page i's memory [chunk start, area end), skipped pages (from-space, code) included. */
int v8_heap_page_range(const v8_heap_t *h, size_t i, uint64_t *start, uint64_t *end);
/* The end of the area of the page holding addr (pages are in address order), 0 when none does. */
uint64_t v8_heap_area_end(const v8_heap_t *h, uint64_t addr);
/* 1 when page i is V8's read-only space (maps, oddballs, builtin names: immortal, shared). */
int v8_heap_page_read_only(const v8_heap_t *h, size_t i);
/* Calls cb for every object but free space, page by page (the young generation's from-space,
 * which holds stale copies, is skipped). 0 when done, 1 when cb stopped it, -1 when no heap. */
int v8_heap_walk(v8_heap_t *h, v8_heap_cb cb, void *ctx, v8_heap_stats_t *stats);
/* Before a page is walked: 1 when the caller has its objects already (kept from a walk of the same
 * bytes), and the walk goes on to the next page. area_start and area_end bound its objects; large:
 * one object on pages of its own. */
typedef int (*v8_heap_page_skip_fn)(void *ctx, uint64_t area_start, uint64_t area_end, int large);
/* v8_heap_walk, and page_done(ctx) after each page's objects (while their bytes are valid); pages
 * page_skip (may be NULL) claims are not walked. */
int v8_heap_walk_pages(v8_heap_t *h, v8_heap_cb cb, void (*page_done)(void *ctx), v8_heap_page_skip_fn page_skip,
                       void *ctx, v8_heap_stats_t *st);
/* 1 for the instance types of JavaScript objects (JSReceivers: objects, arrays, functions, ...). */
int v8_heap_is_js_type(const v8_heap_t *h, int type);
/* For a JSFunction found by the walk: its SharedFunctionInfo (checked). -1 when o is no function. */
int v8_heap_function_shared(v8_heap_t *h, const v8_heap_object_t *o, uint64_t *shared);

/* ---- async ---- */
/* Suspended async functions, async generators and generators (v8/async.c), the promises they
 * await and the chain of async functions awaiting them, followed as V8's own async stack traces
 * follow it (isolate.cc CaptureAsyncStackTrace): a pending promise with exactly one reaction whose
 * handler is an await closure (its context's extension is the awaiting generator), a Promise.all /
 * allSettled / any element closure (its context holds the combinator's capability), a promise's
 * default resolve function, or a plain `then` chain. */
typedef enum { V8_GEN_ASYNC_FUNCTION, V8_GEN_ASYNC_GENERATOR, V8_GEN_GENERATOR } v8_gen_kind_t;
typedef enum { V8_GEN_SUSPENDED, V8_GEN_EXECUTING, V8_GEN_CLOSED, V8_GEN_UNKNOWN } v8_gen_state_t;
typedef struct {
    uint64_t addr; /* the generator object */
    v8_gen_kind_t kind;
    v8_gen_state_t state;
    uint64_t function, shared, context, receiver;
    int64_t bytecode_offset;    /* suspended: where it resumes (the await or yield), else -1 */
    int line, col;              /* 1-based script position of that await or yield, 0 unknown */
    int position_is_definition; /* the bytecode had no position table: line:col is the definition */
    uint64_t promise;           /* an async function's own promise; an async generator's first request's
                                 promise (what its awaiters wait on); 0 none */
    int awaiting_yield;         /* an async generator suspended at a yield (not an await) */
} v8_generator_t;
/* The facts of one generator object; -1 when addr is none or unreadable. */
int v8_generator_info(v8_t *v, uint64_t addr, v8_generator_t *out);
/* The same without the position (line, col stay 0): a few reads, for walks over many. */
int v8_generator_state(v8_t *v, uint64_t addr, v8_generator_t *out);
/* Fills g's line, col and position_is_definition from its function's bytecode (what
   v8_generator_info adds to v8_generator_state). */
void v8_generator_position(v8_t *v, v8_generator_t *g);
/* 1 for the instance types of generator objects (what v8_generator_info reads). */
int v8_is_generator_type(const v8_t *v, int type);
/* 1 for JS_PROMISE_TYPE. */
int v8_is_promise_type(const v8_t *v, int type);

typedef enum { V8_ASYNC_AWAIT, V8_ASYNC_COMBINATOR } v8_async_frame_kind_t;
typedef struct {
    v8_async_frame_kind_t kind;
    uint64_t generator;     /* AWAIT: the awaiting async function or async generator */
    uint64_t promise;       /* the promise this frame waits on (the one whose reaction led here) */
    const char *combinator; /* COMBINATOR: "Promise.all", "Promise.allSettled", "Promise.any" */
    int index;              /* COMBINATOR: the element's index */
} v8_async_frame_t;
/* Who awaits promise: the async frames, innermost first, at most max (V8 stops where the chain
 * forks or ends, and so does this). Returns how many. */
size_t v8_async_chain(v8_t *v, uint64_t promise, v8_async_frame_t *out, size_t max);

/* The generator an await closure (a PromiseReaction's fulfill or reject handler) resumes, or 0. */
uint64_t v8_await_closure_generator(v8_t *v, uint64_t handler);
/* The reactions of a pending promise (newest first, as V8 keeps them), cb(ctx, reaction) each,
 * at most limit. 0, or -1 when promise is no pending promise. */
typedef int (*v8_reaction_cb)(void *ctx, uint64_t reaction, uint64_t fulfill, uint64_t reject);
int v8_promise_reactions(v8_t *v, uint64_t promise, v8_reaction_cb cb, void *ctx, int limit);
/* Where a thread's async stack starts (V8 starts from the current microtask: the await closure
 * that resumed an async function). A core keeps no such pointer where we can read it, so the
 * generator is recognised on the heap instead: an executing async function or async generator
 * whose function runs in one of the thread's JS frames (the outermost such frame: the one the
 * microtask resumed). Its own promise in *promise; -1 when none (the thread runs no resumed
 * async function, and V8 would print no async frames either). Walks the heap h. */
int v8_async_current_promise(v8_t *v, v8_heap_t *h, const v8_frame_t *frames, size_t n, uint64_t *promise);
/* A promise's state (V8_PROMISE_*), -1 when value is no promise. */
int v8_promise_state(v8_t *v, uint64_t promise);

/* ---- pending work: what keeps the event loop alive (v8/pending.c) ---- */
/* libuv's uv_handle_type (uv.h; the same in every libuv Node 18-24 ships) */
typedef enum {
    V8_UV_UNKNOWN,
    V8_UV_ASYNC,
    V8_UV_CHECK,
    V8_UV_FS_EVENT,
    V8_UV_FS_POLL,
    V8_UV_HANDLE,
    V8_UV_IDLE,
    V8_UV_NAMED_PIPE,
    V8_UV_POLL,
    V8_UV_PREPARE,
    V8_UV_PROCESS,
    V8_UV_STREAM,
    V8_UV_TCP,
    V8_UV_TIMER,
    V8_UV_TTY,
    V8_UV_UDP,
    V8_UV_SIGNAL,
    V8_UV_FILE,
} v8_uv_type_t;
/* libuv's default loop (the main thread's): its clock, counters and every handle. */
typedef struct {
    uint64_t addr; /* the uv_handle_t */
    int type;      /* uv_handle_type (v8_uv_type_name) */
    unsigned flags;
    int active, ref, closing, internal, listening, connection;
    int fd;                    /* streams and UDP; -1 otherwise */
    int pid;                   /* process handles */
    uint64_t data;             /* handle->data: Node's HandleWrap (v8_pending_t.native) */
    uint64_t timeout;          /* timers: when due, in loop time (ms) */
    uint64_t write_queue_size; /* streams: bytes queued to write */
} v8_uv_handle_t;
typedef struct {
    uint64_t addr, time;     /* the loop's clock: ms, CLOCK_MONOTONIC as of its last update */
    unsigned active_handles; /* active and ref'd handles: the loop runs while this or ... */
    unsigned active_reqs;    /* ... this (requests in flight: fs, dns, connect, write) is nonzero */
    v8_uv_handle_t *handles;
    size_t nhandles;
    int truncated; /* the handle queue was cut short (unreadable or too long) */
} v8_uv_loop_t;
/* -1 when the executable has no default_loop_struct or the loop is unreadable. */
int v8_uv_loop_read(v8_t *v, v8_uv_loop_t *out);
/* The same for a uv_loop_t at a given address (fuzzing). */
int v8_uv_loop_read_at(v8_t *v, uint64_t loop, v8_uv_loop_t *out);
void v8_uv_loop_free(v8_uv_loop_t *l);
const char *v8_uv_type_name(int type);

/* Node's JavaScript objects for pending work, found on the heap by constructor name. */
typedef enum {
    V8_PENDING_NONE,
    V8_PENDING_TIMEOUT,
    V8_PENDING_IMMEDIATE,
    V8_PENDING_SERVER,
    V8_PENDING_SOCKET,
    V8_PENDING_CHILD,
    V8_PENDING_WORKER,
    V8_PENDING_WRAP,
    V8_PENDING_REQUEST,
    V8_PENDING_TICK_QUEUE,
} v8_pending_kind_t;
typedef struct {
    v8_pending_kind_t kind;
    uint64_t obj;
    int live;                    /* still pending: not destroyed, closed, completed (else a dead object
                                 the GC has not collected yet) */
    char class_name[32];         /* WRAP, REQUEST: "TCP", "FSReqCallback", ... */
    uint64_t callback;           /* TIMEOUT, IMMEDIATE: the callback; REQUEST: oncomplete */
    uint64_t user_callback;      /* REQUEST: the program's callback oncomplete will call, 0 unknown */
    double delay, start, repeat; /* TIMEOUT: _idleTimeout, _idleStart (Node's loop ms), _repeat; -1 none */
    int ref;                     /* TIMEOUT, IMMEDIATE: 1 ref'd, 0 unref'd, -1 unknown */
    uint64_t handle;             /* SERVER, SOCKET, CHILD: the `_handle` wrap */
    uint64_t native;             /* its (WRAP, REQUEST: its own) C++ object: a uv handle's data */
    uint64_t key;                /* SERVER: _connectionKey; SOCKET: _host; CHILD: spawnfile (strings) */
    uint64_t peer, sock;         /* SOCKET: cached _peername, _sockname objects */
    int pid;                     /* CHILD: pid; WORKER: threadId */
    int64_t length;              /* TICK_QUEUE: entries */
} v8_pending_t;
typedef int (*v8_pending_cb)(void *ctx, const v8_pending_t *p);
/* Calls cb for each such object on the heap (live or not: see .live). 0 done, -1 no heap. */
int v8_pending_scan(v8_t *v, v8_heap_t *h, v8_pending_cb cb, void *ctx, v8_heap_stats_t *st);
/* The same for one object of a known kind. */
void v8_pending_fill(v8_t *v, uint64_t obj, v8_pending_kind_t kind, v8_pending_t *p);
/* The C++ object a Node API object wraps (internal field 1), 0 when cleared. */
uint64_t v8_node_wrap_pointer(v8_t *v, uint64_t obj);
/* The main context's microtask queue (V8's C++ ring buffer of promise reactions and
 * queueMicrotask callbacks waiting to run). -1 when it cannot be found or is inconsistent. */
typedef struct {
    uint64_t queue, ring; /* the MicrotaskQueue and its ring buffer */
    int64_t size, capacity, start;
} v8_microtasks_t;
int v8_microtask_queue(v8_t *v, v8_microtasks_t *out);
/* The i-th microtask waiting (0 runs next): a tagged Microtask (CallableTask, PromiseReactionJobTask...). */
int v8_microtask_at(v8_t *v, const v8_microtasks_t *q, int64_t i, uint64_t *task);
/* The JS function a microtask will call (a CallableTask's callable, a promise reaction job's
 * handler); -1 for other tasks or when it is not a function. */
int v8_microtask_function(v8_t *v, uint64_t task, uint64_t *fn);
/* ---- an object's references (v8/heap_edges.c; the object graph over them: v8/graph.h) ---- */
/* An object's outgoing references, DevTools-style. The kinds are numbered as V8's heap snapshot
 * numbers its edge types. */
typedef enum {
    V8_EDGE_CONTEXT,
    V8_EDGE_ELEMENT,
    V8_EDGE_PROPERTY,
    V8_EDGE_INTERNAL,
    V8_EDGE_HIDDEN,
    V8_EDGE_SHORTCUT,
    V8_EDGE_WEAK,
    V8_EDGE_KINDS
} v8_edge_kind_t;
typedef struct {
    v8_edge_kind_t kind;
    const char *name; /* property, variable or field name; NULL: named by index */
    int64_t index;    /* the element index, or (name NULL) the slot's index */
    uint64_t target;  /* tagged address of the object referenced (a weak reference's strong form) */
    int64_t offset;   /* byte offset of the slot in the holder; -1 when the slot is elsewhere (a
                           backing store: properties, elements, a Map's table, a global's cells) */
} v8_edge_t;
typedef int (*v8_edge_cb)(void *ctx, const v8_edge_t *e);
/* 1 when addr (tagged) starts an object: the graph's node table, so that a stray word is no edge. */
typedef int (*v8_is_object_fn)(void *ctx, uint64_t addr);
typedef struct v8_edges v8_edges_t;
/* Per-type caches for naming edges (field names by class); h (may be NULL) is the heap the
 * objects come from. */
v8_edges_t *v8_edges_new(v8_t *v, v8_heap_t *h);
void v8_edges_free(v8_edges_t *e);
/* Every reference o holds: properties (fast, backing store, dictionary, a global's cells),
 * elements, Map and Set entries ("key", "value of KEY" / index), context variables, an ES
 * module's exports ("export NAME"), then every
 * other tagged slot as an internal edge (named by the metadata's field names, else by index) or a
 * weak one; raw data (characters, bytes, doubles, instructions) holds none. Edges only to objects
 * is_object accepts. Returns 0, 1 when cb stopped the walk. */
int v8_edges_of(v8_edges_t *e, const v8_heap_object_t *o, v8_is_object_fn is_object, void *octx, v8_edge_cb cb,
                void *ctx);
/* 1 when objects of this type name edges that reach past their own slots (a JS object's
 * properties in backing stores, an ES module's exports in Cells): a path's steps fold there. */
int v8_edges_folds(const v8_edges_t *e, int type);
/* The bytes of o that may hold tagged references: [0, *end) (0 for raw data); cheap. */
uint64_t v8_edges_tagged_end(v8_edges_t *e, int type, uint64_t size);
const char *v8_edge_kind_name(v8_edge_kind_t k); /* "property", "element", ... as in snapshots */

#endif
