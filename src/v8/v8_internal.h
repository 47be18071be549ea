/* Inside v8/: the resolved layout and the handle. Not for other modules. */
#ifndef V8_V8_INTERNAL_H
#define V8_V8_INTERNAL_H
#include "v8/metadata.h"
#include "v8/v8.h"

/* Byte offsets from an object's untagged start; -1 when unknown for this V8. */
typedef struct {
    /* tagging */
    int64_t heap_tag, heap_tag_mask, smi_tag_mask, smi_shift;
    /* maps */
    int64_t obj_map, map_type, map_bit_field2, map_bit_field3, map_prototype, map_constructor, map_descriptors,
        map_inobject_start, map_instance_size;
    /* strings */
    int64_t first_nonstring, str_repr_mask, str_enc_mask, str_one_byte, str_seq, str_cons, str_external, str_sliced,
        str_thin;
    int64_t str_not_internalized; /* the instance-type bit a string that is not internalized has (-1: not known) */
    int64_t str_length, str_seq_chars, cons_first, cons_second, sliced_parent, sliced_offset, thin_actual, ext_resource,
        ext_data_cache, ext_uncached_mask, node_ext_data;
    /* functions and code */
    int64_t fn_shared, fn_context, fn_code;
    int64_t context_prev_slot; /* Context: index of the enclosing context */
    int64_t sfi_function_data, sfi_api_data, sfi_name_or_scope, sfi_script, sfi_param_count, sfi_length, sfi_flags,
        sfi_token_offset;
    int64_t uncompiled_inferred, uncompiled_start;
    int64_t script_source, script_name, script_type, script_line_ends, script_eval_from_shared,
        script_eval_from_position;
    int64_t scope_flags, scope_nparams_slot, scope_ncontextlocals_slot, scope_first_vars_slot;
    int64_t bca_source_positions, bca_header; /* BytecodeArray: position table; bytes start */
    /* A source position table's code-offset field: 0 = zig-zag (offset delta, its sign the
       statement flag), through V8 13; 1 = the delta shifted left by two over a flag bit and the
       statement bit, V8 14 (v8_source_position_raw, functions.c) */
    int64_t pos_table_flag_bits;
    /* An ApiCallbackExitFrame's target (FunctionTemplateInfo or JSFunction): its frame slot, in
       the FunctionCallbackInfo's implicit arguments above the frame from V8 13 (api_frames.c) */
    int64_t api_exit_target;
    int64_t bytearray_length, bytearray_data;
    int64_t code_instruction_start, code_instruction_size, code_flags, code_kind_mask, code_kind_shift,
        code_source_positions, code_deopt_data, istream_code, code_inline_instructions;
    int64_t deopt_inlined_count, deopt_literals, deopt_inlining_positions; /* DeoptimizationData indices */
    int64_t kind_interpreted, kind_baseline, kind_maglev, kind_turbofan, kind_builtin, kind_bytecode_handler;
    /* frames */
    int64_t fp_context, fp_function, fp_argc, fp_args, fp_bytecode_array, fp_bytecode_offset;
    int reg_js_function; /* the register a JS function is entered with its callee in (V8's
                            kJSFunctionRegister), as an index of the target's regs[]; -1 unknown */
    int64_t ft_entry, ft_construct_entry, ft_exit, ft_builtin_exit, ft_api_callback_exit, ft_interpreted, ft_baseline,
        ft_maglev, ft_turbofan;
    /* values */
    int64_t heap_number_value, oddball_kind, oddball_to_string, fixed_array_length, fixed_array_data, symbol_name,
        jsarray_length, jsobj_properties, jsobj_elements;
    int64_t view_byte_length, view_byte_offset, typed_length;
    /* properties and elements */
    int64_t bf3_dict_shift, bf3_nod_mask, bf3_nod_shift, bf2_kind_mask, bf2_kind_shift;
    int64_t desc_header, desc_key, desc_details, desc_value, desc_size;
    int64_t prop_kind_mask, prop_location_mask, prop_location_shift, prop_location_field, prop_index_mask,
        prop_index_shift;
    int64_t dict_prefix_start, dict_prefix_size, dict_entry_size, numdict_prefix_size, numdict_entry_size;
    int64_t kind_dictionary_elements;
    int type_fixed_double_array, type_property_array, type_descriptor_array;
    /* instance types */
    int type_map, type_sfi, type_script, type_scope_info, type_bytecode_array, type_bytecode_wrapper, type_code,
        type_instruction_stream, type_sfi_wrapper, type_heap_number, type_oddball, type_hole, type_fixed_array,
        type_js_function, type_js_array, type_js_object, type_symbol, type_byte_array, type_trusted_byte_array,
        type_js_typed_array, type_js_array_buffer, type_feedback_vector, type_js_global_proxy,
        type_function_template_info, type_call_handler_info, type_accessor_pair;
    int type_free_space; /* FREE_SPACE_TYPE, named or derived (-1: not known) */
    /* JavaScript values for print (v8/jsvalue.c): instance types and the fields V8 does not export,
       the same in every supported version (8-byte tagged fields after the JSObject header) */
    int type_js_global_object, type_js_date, type_js_regexp, type_js_error, type_js_map, type_js_set, type_js_weak_map,
        type_js_weak_set, type_js_promise, type_js_proxy, type_js_data_view, type_js_primitive_wrapper, type_bigint,
        type_property_cell, type_js_bound_function, type_swiss_dictionary, type_js_array_iterator;
    int64_t date_value, date_value_is_double, regexp_source, regexp_flags, promise_result, promise_flags, proxy_target,
        proxy_handler, collection_table, primitive_value, ab_backing_store, ab_byte_length, view_buffer, typed_base,
        typed_external, cell_name, cell_details, cell_value, prop_attr_shift, bound_target;
    int64_t first_context_type, last_context_type; /* the Context subtypes, which have no type_ entries */
    int64_t type_script_context;                   /* a script's top-level `let`/`const`/`class` (-1: not known) */
    int type_source_text_module;                   /* an ES module's record (-1: not known); fields: V8_MODULE_* */
    /* JSMessageObject (the message node::errors::TriggerUncaughtException gets: v8/exception.c);
       its script field, which the metadata does not name, is two fields before shared_info */
    int type_js_message_object;
    int type_call_site_info, type_error_stack_data; /* an Error's captured stack (exception.c) */
    int64_t msg_shared_info, msg_bytecode_offset, msg_start_position;
    int64_t oddball_kinds[10]; /* false true the_hole null arguments_marker undefined ... by name */

    /* ---- async (v8/async.c; resolved by v8_layout_async in layout.c) ----
       Generator objects, promise reactions and the closures await and Promise.all leave behind.
       The metadata names their instance types but none of their fields: the offsets below come
       from V8's Torque definitions (js-generator.tq, promise-misc.tq, promise-abstract-
       operations.tq), the same in V8 10.2, 11.3, 12.4 and 13.6, checked on cores of Node 18-24
       (tests/e2e/core_async.sh). */
    int type_js_async_function_object, type_js_async_generator_object, type_js_generator_object, type_promise_reaction,
        type_promise_capability, type_async_generator_request, type_first_js_function;
    int64_t gen_function, gen_context, gen_receiver, gen_input_or_debug_pos, gen_resume_mode, gen_continuation,
        gen_parameters_and_registers, async_fn_promise, async_gen_queue, async_gen_is_awaiting;
    int64_t gen_executing, gen_closed; /* JSGeneratorObject::kGeneratorExecuting/Closed */
    int64_t reaction_next, reaction_reject_handler, reaction_fulfill_handler, reaction_promise_or_capability;
    int64_t capability_promise, gen_request_next, gen_request_promise;
    int64_t ctx_min_slots, ctx_extension_slot; /* Context::MIN_CONTEXT_SLOTS, EXTENSION_INDEX */
    int64_t async_sfi_data;                    /* SharedFunctionInfo -> bytecode (or baseline code) */
    int64_t api_embedder_fields;               /* an API object's first embedder field (pending.c) */
    /* the entry of layout.c's facts table taken (its V8 version), and how: 0 its own, 1 a newer V8
       given the newest entry's facts, -1 an older V8 given the oldest entry's (v8_facts) */
    int facts_major, facts_minor, facts_fit;
} v8_layout_t;

typedef struct {
    int type;
    const char *name;       /* INSTANCE_TYPE name */
    const char *class_name; /* C++ class */
} v8_type_entry_t;

/* Where each line of one script starts (character offsets), computed once per script. */
typedef struct {
    uint64_t script;
    int64_t *starts;
    size_t n;
} v8_script_lines_t;
#define V8_SCRIPT_CACHE 32
#define V8_API_CALLEES 128 /* C++ callbacks remembered with their API functions */
#define V8_CLEANUPS 8      /* caches that register a cleanup with v8_on_close */

typedef struct {
    uint64_t callee, shared; /* a C++ function an API function runs, and that function (0: none found) */
} v8_api_callee_t;

struct v8 {
    target_t *t;
    v8_metadata_t md;
    v8_layout_t L;
    int major, minor, build, patch;
    char version[48];
    v8_type_entry_t *types; /* sorted by type */
    size_t ntypes;
    char **type_strings; /* owned name storage */
    size_t ntype_strings;
    uint64_t interp_lo, interp_hi; /* Builtins_InterpreterEntryTrampoline range, 0 if unknown */
    v8_script_lines_t script_lines[V8_SCRIPT_CACHE];
    unsigned script_lines_next;
    int global_found; /* v8_global_object's heap search was done; its answer (0: none) */
    uint64_t global_object;
    uint64_t code_header_map; /* the map of code headers, once one was found (code.c) */
    uint64_t dispatch_table;  /* V8 13.6+: the JSDispatchTable's base (dispatch.c; 0: none) */
    int dispatch_looked;
    unsigned char *bc_sizes; /* V8's kBytecodeSizes [3][bc_count] (code.c) */
    int bc_count, bc_sizes_loaded;
    struct v8_sfi_cache *sfi_cache;              /* v8_shared_info results by SharedFunctionInfo (functions.c) */
    struct v8_code_cache *code_cache;            /* code objects found by scanning, by pc range (code.c) */
    struct v8_bc_owner *bc_owner;                /* whose bytecode a BytecodeArray is (frames.c) */
    int64_t template_shared_field;               /* where a FunctionTemplateInfo keeps its SharedFunctionInfo,
                                         once found (frames.c; 0: not yet) */
    v8_api_callee_t api_callees[V8_API_CALLEES]; /* (frames.c api_callees) */
    size_t n_api_callees;
    int64_t reads, read_limit;              /* field reads made, and allowed (0: no limit) (tagged.c) */
    void (*cleanups[V8_CLEANUPS])(v8_t *v); /* what v8_close frees besides (v8_on_close) */
    size_t ncleanups;
};

/* tagged.c: the caches above the tagged-value reader (functions.c's, code.c's, frames.c's) tell
 * v8_close how to free them when they first hold something: fn(v) is called once as v closes
 * (registering the same fn again does nothing). The handle's owner knows none of them. */
void v8_on_close(v8_t *v, void (*fn)(v8_t *v));

/* dispatch.c: a JSFunction's current Code: its code field (V8 10-11), through V8 13.6's dispatch
 * table; -1 where neither is there (V8 12's code pointer table is not read) */
int v8_function_code(v8_t *v, uint64_t fn, uint64_t *code);

/* code.c: the Code object a pc is in */
typedef struct {
    uint64_t code, start;
    uint32_t size;
    int64_t kind; /* CodeKind */
} v8_code_t;
int v8_code_for_pc(v8_t *v, uint64_t fn, uint64_t shared, uint64_t pc, v8_code_t *out);
/* The SharedFunctionInfo optimized (TurboFan, Maglev) code was compiled for, from its
 * deoptimization data: the running function's, whatever the JSFunction slot says now. */
int v8_code_shared(v8_t *v, const v8_code_t *c, uint64_t *shared);
/* The functions (innermost inlined first, the code's own function last) and script offsets at
 * pc_offset of optimized code; returns how many (0 when the tables are unreadable). */
int v8_optimized_positions(v8_t *v, const v8_code_t *c, uint64_t outer_shared, int64_t pc_offset, uint64_t *shared,
                           int64_t *pos, int max);
/* The bytecode offset a baseline (Sparkplug) code pc corresponds to. */
int v8_baseline_bytecode_offset(v8_t *v, const v8_code_t *c, uint64_t bca, int64_t pc_offset, int64_t *offset);
/* Like v8_source_position, the raw SourcePosition value (with its inlining id). */
int v8_source_position_raw(v8_t *v, uint64_t table, int64_t code_offset, int64_t *raw);
/* jsvalue.c: the heap's global objects (JS_GLOBAL_OBJECT_TYPE, in address order) found by a walk
 * made for something else: v8_global_object's heap search answered from them, without a walk. */
void v8_note_global_objects(v8_t *v, const uint64_t *addrs, size_t n);
/* Decodes a source position table (a ByteArray) and returns the source position of the last
 * entry whose code offset is <= code_offset; -1 when the table is absent or corrupt.
 * *inlined receives the inlining id (0 = not inlined). */
int v8_source_position(v8_t *v, uint64_t table, int64_t code_offset, int64_t *pos, int *inlined);

/* layout.c: fills v->L; -1 (message printed) when something essential is missing. */
int v8_layout_resolve(v8_t *v);
/* layout.c: the async block of v->L (called by v8_layout_resolve; never fails: -1 = unknown). */
void v8_layout_async(v8_t *v);

/* Typed reads at obj (tagged) + off; -1 when unreadable. */
int v8_read_u8(v8_t *v, uint64_t obj, int64_t off, uint8_t *out);
int v8_read_u16(v8_t *v, uint64_t obj, int64_t off, uint16_t *out);
int v8_read_i32(v8_t *v, uint64_t obj, int64_t off, int32_t *out);
/* A Smi field: -1 when unreadable or not a Smi. */
int v8_read_smi(v8_t *v, uint64_t obj, int64_t off, int64_t *out);
/* Calls cb with each UTF-16 code unit of a string (for line counting); 0 on success. */
int v8_string_scan(v8_t *v, uint64_t value, void (*cb)(void *ctx, uint32_t unit), void *ctx);
/* 1 when value is a heap object of the given instance type. */
int v8_has_type(v8_t *v, uint64_t value, int type);

/* An ES module's record (SourceTextModule): V8 exports its type, not its fields. Torque's order,
 * the same on V8 10.2-13.6 (read off Node 18, 22, 24 cores): Module's exports (an ObjectHashTable:
 * export name -> Cell), hash, status, module_namespace, exception, top_level_capability; then
 * SourceTextModule's code (the module function, or once evaluated its generator object). */
#define V8_MODULE_EXPORTS 8
#define V8_MODULE_CODE 56

/* frames.c and api_frames.c: a tagged slot at fp + off; the pc to symbolize (a return address
 * points after its call); an API call's exit frame named (frame type type), and the calls from
 * optimized code named from their holders, learned per C++ function. */
static inline int v8_frame_slot(v8_t *v, uint64_t fp, int64_t off, uint64_t *out)
{
    return off == -1 ? -1 : target_read_u64(v->t, fp + (uint64_t)off, out);
}
static inline uint64_t v8_frame_lookup_pc(const v8_frame_t *f) { return f->return_address ? f->pc - 1 : f->pc; }
void v8_api_frame(v8_t *v, v8_frame_t *f, int64_t type);
void v8_api_callees(v8_t *v, v8_frame_t *frames, size_t n);

/* heap_walk.c: what the walk's map lookup answers for one word (a map's facts, or not a map): the
 * walk of a page of the same bytes reads the same objects while the answers for its objects' maps
 * hold (a map's instance size changes when V8's slack tracking ends; a map dies and its address
 * holds something else). */
typedef struct {
    uint64_t word;
    uint32_t instance_size;
    int32_t type;
    uint8_t is_map, is_prototype;
} v8_map_fact_t;
/* The answer for word in h (looked up). */
void v8_heap_map_fact(v8_heap_t *h, uint64_t word, v8_map_fact_t *f);

#endif
