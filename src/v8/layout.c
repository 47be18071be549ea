/* Resolves V8's layout for one node binary: constants from the v8dbg_* metadata first; what the
 * metadata lacks comes from one small table keyed by V8 version (fallbacks below), each entry
 * checked against real cores of that Node major (tests/e2e/core_js_stack.sh). */
#include "arch/arch.h"
#include "util/diag.h"
#include "util/privilege.h"
#include "util/xalloc.h"
#include "v8/v8_internal.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Facts V8 does not export, by the first V8 version they hold for; each applies until the next
 * entry. Offsets are from the untagged object start; -1 = not in this version. Every entry was
 * read off real cores of that Node major (tests/e2e/core_js_stack.sh, core_optimized_stack.sh). */
typedef struct {
    int major, minor;
    int64_t fn_code; /* JSFunction -> Code (when the metadata lacks it) */
    int64_t fp_argc; /* frame slot: argument count including the receiver */
    int64_t jsarray_length;
    int64_t bca_source_positions; /* BytecodeArray -> source position table */
    int64_t code_instruction_start, code_instruction_size, code_flags;
    int64_t code_deopt_data, code_source_positions;
    int64_t istream_code;        /* InstructionStream -> its Code */
    int64_t ext_data_cache;      /* ExternalString: cached data pointer */
    int64_t pos_table_flag_bits; /* source position tables: see v8_layout_t */
    int64_t api_exit_target;     /* ApiCallbackExitFrame: fp slot of its target (api_frames.c) */
} v8_fallback_t;

/* V8's registers by architecture (src/codegen/<arch>/register-<arch>.h): the one a JS function is
 * entered with its callee in, kJSFunctionRegister. By name in the target's arch (arch_reg_index). */
static const struct {
    unsigned elf_machine;
    const char *js_function;
} arch_regs[] = {
    {62 /* EM_X86_64 */, "rdi"},
    {183 /* EM_AARCH64 */, "x1"},
};

static int js_function_reg(const arch_t *a)
{
    for (size_t i = 0; a && i < sizeof arch_regs / sizeof *arch_regs; i++)
        if (arch_regs[i].elf_machine == a->elf_machine) return arch_reg_index(a, arch_regs[i].js_function);
    return -1;
}

static const v8_fallback_t fallbacks[] = {
    /* Node 18, V8 10.2: Code objects hold their instructions (no InstructionStream) */
    {.major = 10,
     .minor = 2,
     .fn_code = 48,
     .fp_argc = -24,
     .jsarray_length = 24,
     .bca_source_positions = 32,
     .code_instruction_start = -1,
     .code_instruction_size = -1,
     .code_flags = -1,
     .code_deopt_data = 16,
     .code_source_positions = 24,
     .istream_code = -1,
     .ext_data_cache = 24,
     .api_exit_target = -1},
    /* Node 20, V8 11.3 */
    {.major = 11,
     .minor = 3,
     .fn_code = 48,
     .fp_argc = -24,
     .jsarray_length = 24,
     .bca_source_positions = 32,
     .code_instruction_start = 40,
     .code_instruction_size = 56,
     .code_flags = 48,
     .code_deopt_data = 16,
     .code_source_positions = 24,
     .istream_code = 8,
     .ext_data_cache = 24,
     .api_exit_target = -1},
    /* Node 22, V8 12.4: bytecode and code moved to trusted space, their tables moved up */
    {.major = 12,
     .minor = 4,
     .fn_code = -1,
     .fp_argc = -24,
     .jsarray_length = 24,
     .bca_source_positions = 24,
     .code_instruction_start = 40,
     .code_instruction_size = 52,
     .code_flags = 48,
     .code_deopt_data = 8,
     .code_source_positions = 16,
     .istream_code = 8,
     .ext_data_cache = 24,
     .api_exit_target = 16},
    /* Node 24, V8 13.6: JSFunction reaches its code through the dispatch table (not read) */
    {.major = 13,
     .minor = 6,
     .fn_code = -1,
     .fp_argc = -24,
     .jsarray_length = 24,
     .bca_source_positions = 24,
     .code_instruction_start = 40,
     .code_instruction_size = 56,
     .code_flags = 52,
     .code_deopt_data = 8,
     .code_source_positions = 16,
     .istream_code = 8,
     .ext_data_cache = 24,
     .api_exit_target = 48},
    /* Node 25, V8 14.1: a position table's code-offset field is (delta << 2 | 2 | is_statement),
       read off `--print-bytecode` beside the table's bytes, and TurboFan's `--print-opt-code` */
    {.major = 14,
     .minor = 1,
     .fn_code = -1,
     .fp_argc = -24,
     .jsarray_length = 24,
     .bca_source_positions = 24,
     .code_instruction_start = 40,
     .code_instruction_size = 56,
     .code_flags = 52,
     .code_deopt_data = 8,
     .code_source_positions = 16,
     .istream_code = 8,
     .ext_data_cache = 24,
     .pos_table_flag_bits = 1,
     .api_exit_target = 48},
    /* Node 26, V8 14.6: an API call's target moved down a slot of the implicit arguments */
    {.major = 14,
     .minor = 6,
     .fn_code = -1,
     .fp_argc = -24,
     .jsarray_length = 24,
     .bca_source_positions = 24,
     .code_instruction_start = 40,
     .code_instruction_size = 56,
     .code_flags = 52,
     .code_deopt_data = 8,
     .code_source_positions = 16,
     .istream_code = 8,
     .ext_data_cache = 24,
     .pos_table_flag_bits = 1,
     .api_exit_target = 40},
};

/* NODESCOPE_V8_FACTS_HIDE="14.6" leaves that version's entry out (the tests: what a V8 newer
 * than the table looks like). */
static int hidden_entry(const v8_fallback_t *f)
{
    const char *h = priv_env("NODESCOPE_V8_FACTS_HIDE"); /* (ignored with capabilities) */
    int major, minor;
    return h && sscanf(h, "%d.%d", &major, &minor) == 2 && major == f->major && minor == f->minor;
}

/* What the facts the metadata lacks steer, as a V8 the table does not know is warned of (and
 * `nodescope --version` names them) */
static const char facts_steer[] = "source position tables, frame slots, API frames' targets";
static const char facts_risk[] = "positions, inlined frames and API frames may be wrong";

/* The entry for v's version: the newest at or before it. A V8 newer than the newest entry (V8 15
 * when the table ends at 14.6) gets that entry's facts, said once on stderr with what they steer:
 * loud, not silently wrong. */
static const v8_fallback_t *fallback_for(v8_t *v)
{
    const v8_fallback_t *best = NULL, *newest = NULL;
    for (size_t i = 0; i < sizeof fallbacks / sizeof fallbacks[0]; i++) {
        const v8_fallback_t *f = &fallbacks[i];
        if (hidden_entry(f)) continue;
        newest = f;
        if (f->major < v->major || (f->major == v->major && f->minor <= v->minor)) best = f;
    }
    v->L.facts_fit = 0;
    if (best && best == newest && (best->major != v->major || best->minor != v->minor)) {
        v->L.facts_fit = 1;
        diag_warn_once("v8-newer", NULL, 0,
                       "V8 %d.%d is newer than nodescope knows (%d.%d): the layout facts its metadata lacks "
                       "(%s) are taken as on %d.%d: %s",
                       v->major, v->minor, best->major, best->minor, facts_steer, best->major, best->minor, facts_risk);
    }
    if (!best) v->L.facts_fit = -1;
    best = best ? best : &fallbacks[0];
    v->L.facts_major = best->major, v->L.facts_minor = best->minor;
    return best;
}

int v8_facts(const v8_t *v, v8_facts_t *out)
{
    const v8_layout_t *L = &v->L;
    memset(out, 0, sizeof *out);
    out->major = L->facts_major, out->minor = L->facts_minor, out->fit = L->facts_fit;
    out->steer = facts_steer, out->risk = facts_risk;
    out->nmetadata = v->md.count;
    size_t n = 0;
    for (size_t i = 0; i < sizeof fallbacks / sizeof fallbacks[0] && n < V8_FACTS_TABLE_MAX; i++)
        if (!hidden_entry(&fallbacks[i]))
            out->table[n][0] = fallbacks[i].major, out->table[n++][1] = fallbacks[i].minor;
    out->ntable = n;
    const struct {
        const char *name;
        int64_t value;
    } f[] = {{"fp_context", L->fp_context},
             {"fp_function", L->fp_function},
             {"fp_args", L->fp_args},
             {"fp_argc", L->fp_argc},
             {"fp_bytecode_array", L->fp_bytecode_array},
             {"fp_bytecode_offset", L->fp_bytecode_offset},
             {"api_exit_target", L->api_exit_target},
             {"bca_source_positions", L->bca_source_positions},
             {"pos_table_flag_bits", L->pos_table_flag_bits},
             {"code_instruction_start", L->code_instruction_start},
             {"code_instruction_size", L->code_instruction_size},
             {"code_flags", L->code_flags},
             {"code_deopt_data", L->code_deopt_data},
             {"code_source_positions", L->code_source_positions},
             {"istream_code", L->istream_code},
             {"fn_code", L->fn_code},
             {"jsarray_length", L->jsarray_length},
             {"ext_data_cache", L->ext_data_cache}};
    for (size_t i = 0; i < sizeof f / sizeof f[0] && i < V8_FACTS_MAX; i++)
        out->facts[i].name = f[i].name, out->facts[i].value = f[i].value, out->nfacts = i + 1;
    return 0;
}

typedef struct {
    v8_t *v;
    const char *missing[16];
    int nmissing;
} resolver_t;

/* One metadata name: class fields ("class_C__field__Type") match on "class_C__field__" whatever
 * the type suffix, which V8 renames between versions (Object -> Tagged_Object_). */
static int lookup(resolver_t *r, const char *name, int64_t *x)
{
    if (!strncmp(name, "class_", 6)) {
        char prefix[160];
        const char *type = strstr(name + 6, "__");
        type = type ? strstr(type + 2, "__") : NULL;
        if (type && (size_t)(type + 2 - name) < sizeof prefix) {
            memcpy(prefix, name, (size_t)(type + 2 - name));
            prefix[type + 2 - name] = 0;
            return v8_metadata_get_prefix(&r->v->md, prefix, x);
        }
    }
    return v8_metadata_get(&r->v->md, name, x);
}

/* The first of several alternative metadata names that exists, else dflt. */
static int64_t opt(resolver_t *r, int64_t dflt, const char *a, const char *b)
{
    int64_t x;
    if (a && lookup(r, a, &x) == 0) return x;
    if (b && lookup(r, b, &x) == 0) return x;
    return dflt;
}

/* Like opt, but the value is essential: remember the name when it is absent. */
static int64_t need(resolver_t *r, const char *a, const char *b)
{
    int64_t x = opt(r, -1, a, b);
    if (x == -1 && r->nmissing < 16) r->missing[r->nmissing++] = a;
    return x;
}

static int type_of(resolver_t *r, const char *suffix)
{
    /* instance types are looked up by INSTANCE_TYPE name among all type_* entries */
    for (size_t i = 0; i < r->v->ntypes; i++)
        if (!strcmp(r->v->types[i].name, suffix)) return r->v->types[i].type;
    return -1;
}

static int type_named(const v8_t *v, int type)
{
    for (size_t i = 0; i < v->ntypes; i++)
        if (v->types[i].type == type) return 1;
    return 0;
}

static int by_type(const void *a, const void *b)
{
    const v8_type_entry_t *x = a, *y = b;
    return (x->type > y->type) - (x->type < y->type);
}

/* The API object types (what Node's wrappers are made of) have no type_ entry, only the constants
 * APIObjectType and SpecialAPIObjectType (1058 and 1040 on V8 10-13): name them as V8 does. */
static void add_api_types(v8_t *v)
{
    static const struct {
        const char *constant, *inst, *cls;
    } api[] = {{"APIObjectType", "JS_API_OBJECT_TYPE", "JSAPIObjectWithEmbedderSlots"},
               {"SpecialAPIObjectType", "JS_SPECIAL_API_OBJECT_TYPE", "JSSpecialObject"}};
    for (size_t k = 0; k < sizeof api / sizeof api[0]; k++)
        for (size_t i = 0; i < v->md.count; i++) {
            if (strcmp(v->md.items[i].name, api[k].constant)) continue;
            int type = (int)v->md.items[i].value, known = 0;
            for (size_t j = 0; j < v->ntypes; j++) known |= v->types[j].type == type;
            if (known) break;
            v->types = xrealloc(v->types, (v->ntypes + 1) * sizeof *v->types);
            v->types[v->ntypes++] = (v8_type_entry_t){type, api[k].inst, api[k].cls};
            break;
        }
}

/* type_<Class>__<INSTANCE_TYPE> entries -> a table sorted by type number. */
static void load_types(v8_t *v)
{
    for (size_t i = 0; i < v->md.count; i++) {
        const char *n = v->md.items[i].name;
        if (strncmp(n, "type_", 5)) continue;
        const char *sep = strstr(n + 5, "__");
        if (!sep) continue;
        char *cls = xstrndup(n + 5, (size_t)(sep - (n + 5)));
        char *inst = xstrdup(sep + 2);
        v->type_strings = xrealloc(v->type_strings, (v->ntype_strings + 2) * sizeof *v->type_strings);
        v->type_strings[v->ntype_strings++] = cls;
        v->type_strings[v->ntype_strings++] = inst;
        v->types = xrealloc(v->types, (v->ntypes + 1) * sizeof *v->types);
        v->types[v->ntypes++] = (v8_type_entry_t){(int)v->md.items[i].value, inst, cls};
    }
    add_api_types(v);
    qsort(v->types, v->ntypes, sizeof *v->types, by_type);
}

static void read_version(v8_t *v)
{
    static const char *names[4] = {"_ZN2v88internal7Version6major_E", "_ZN2v88internal7Version6minor_E",
                                   "_ZN2v88internal7Version6build_E", "_ZN2v88internal7Version6patch_E"};
    int *dst[4] = {&v->major, &v->minor, &v->build, &v->patch};
    for (int i = 0; i < 4; i++) {
        uint64_t x = 0;
        *dst[i] = target_exe_symbol_value(v->t, names[i], &x, NULL) == 0 ? (int)(uint32_t)x : 0;
    }
    snprintf(v->version, sizeof v->version, "%d.%d.%d.%d", v->major, v->minor, v->build, v->patch);
}

int v8_layout_resolve(v8_t *v)
{
    resolver_t r = {v, {0}, 0};
    v8_layout_t *L = &v->L;
    if (!v->major) read_version(v);
    else snprintf(v->version, sizeof v->version, "%d.%d", v->major, v->minor);
    load_types(v);
    const v8_fallback_t *fb = fallback_for(v);

    L->heap_tag = need(&r, "HeapObjectTag", NULL);
    L->heap_tag_mask = need(&r, "HeapObjectTagMask", NULL);
    L->smi_tag_mask = need(&r, "SmiTagMask", NULL);
    /* Smi value = word >> (SmiShiftSize + tag size 1) */
    L->smi_shift = need(&r, "SmiShiftSize", NULL) + 1;

    L->obj_map = need(&r, "class_HeapObject__map__Map", NULL);
    L->map_type = need(&r, "class_Map__instance_type__uint16_t", NULL);
    L->map_bit_field2 = opt(&r, -1, "class_Map__bit_field2__char", NULL);
    L->map_bit_field3 = opt(&r, -1, "class_Map__bit_field3__int", NULL);
    L->map_prototype = opt(&r, -1, "class_Map__prototype__HeapObject", "class_Map__prototype__Object");
    L->map_constructor = opt(&r, -1, "class_Map__constructor_or_back_pointer__Object", NULL);
    L->map_descriptors = opt(&r, -1, "class_Map__instance_descriptors__DescriptorArray", NULL);
    L->map_inobject_start =
        opt(&r, -1, "class_Map__inobject_properties_start_or_constructor_function_index__char", NULL);
    L->map_instance_size = opt(&r, -1, "class_Map__instance_size_in_words__char", NULL);

    L->first_nonstring = need(&r, "FirstNonstringType", NULL);
    L->str_repr_mask = need(&r, "StringRepresentationMask", NULL);
    L->str_enc_mask = need(&r, "StringEncodingMask", NULL);
    L->str_one_byte = need(&r, "OneByteStringTag", NULL);
    L->str_seq = need(&r, "SeqStringTag", NULL);
    L->str_cons = need(&r, "ConsStringTag", NULL);
    L->str_external = need(&r, "ExternalStringTag", NULL);
    L->str_sliced = need(&r, "SlicedStringTag", NULL);
    L->str_thin = opt(&r, 5, "ThinStringTag", NULL);
    L->str_length = need(&r, "class_String__length__int32_t", NULL);
    /* sequential characters follow the String header; the metadata names the field in some versions */
    L->str_seq_chars =
        opt(&r, L->str_length + 4, "class_SeqOneByteString__chars__char", "class_SeqString__chars__char");
    L->cons_first = need(&r, "class_ConsString__first__String", NULL);
    L->cons_second = need(&r, "class_ConsString__second__String", NULL);
    L->sliced_parent = need(&r, "class_SlicedString__parent__String", NULL);
    L->sliced_offset = need(&r, "class_SlicedString__offset__SMI", NULL);
    L->thin_actual = opt(&r, L->str_length + 4, "class_ThinString__actual__String", NULL);
    L->ext_resource = need(&r, "class_ExternalString__resource__Object", NULL);
    L->ext_data_cache = fb->ext_data_cache;
    L->ext_uncached_mask = opt(&r, 0x10, "UncachedExternalStringTag", "kUncachedExternalStringMask");
    {
        uint64_t x = 0;
        /* node's ExternalString resources keep the data pointer at this offset (set at startup) */
        L->node_ext_data =
            target_exe_symbol_value(v->t, "nodedbg_offset_ExternalString__data__uintptr_t", &x, NULL) == 0 && x
                ? (int64_t)x
                : 8;
    }

    L->fn_shared = need(&r, "class_JSFunction__shared__SharedFunctionInfo", NULL);
    L->fn_context = opt(&r, -1, "class_JSFunction__context__Context", NULL);
    L->context_prev_slot = opt(&r, -1, "context_idx_prev", NULL);
    L->fn_code = opt(&r, fb->fn_code, "class_JSFunction__code__Code",
                     "class_JSFunction__code__Tagged_Code_"); /* V8 12: a Tagged<Code> */
    /* V8 12+ exports no name for it: trusted_function_data at +8 (BytecodeArray, UncompiledData;
       a direct pointer without the sandbox), read off Node 22 and 24 cores */
    L->sfi_function_data = opt(&r, v->major >= 12 ? 8 : -1, "class_SharedFunctionInfo__function_data__Object",
                               "class_SharedFunctionInfo__trusted_function_data__Object");
    L->sfi_name_or_scope = need(&r, "class_SharedFunctionInfo__name_or_scope_info__Object", NULL);
    /* Where an API function's SharedFunctionInfo keeps its FunctionTemplateInfo: function_data
       through V8 11; V8 12 and 13 export no name for it: the field before name_or_scope_info
       (Node 22: function_data at +8; Node 24: untrusted_function_data at +16, after
       trusted_function_data; read off live processes blocked in fs.readSync) */
    L->sfi_api_data = opt(&r, L->sfi_name_or_scope >= 16 ? L->sfi_name_or_scope - 8 : -1,
                          "class_SharedFunctionInfo__function_data__Object",
                          "class_SharedFunctionInfo__untrusted_function_data__Object");
    /* V8 12 split script_or_debug_info into script (and raw_script) */
    L->sfi_script = need(&r, "class_SharedFunctionInfo__script_or_debug_info__HeapObject",
                         "class_SharedFunctionInfo__script__Object");
    L->sfi_param_count = opt(&r, -1, "class_SharedFunctionInfo__internal_formal_parameter_count__uint16_t",
                             "class_SharedFunctionInfo__formal_parameter_count__uint16_t");
    L->sfi_length = opt(&r, -1, "class_SharedFunctionInfo__length__uint16_t", NULL);
    L->sfi_token_offset = opt(&r, -1, "class_SharedFunctionInfo__raw_function_token_offset__int16_t", NULL);
    L->sfi_flags = opt(&r, -1, "class_SharedFunctionInfo__flags__int", NULL);
    L->uncompiled_inferred = opt(&r, -1, "class_UncompiledData__inferred_name__String", NULL);
    L->uncompiled_start = opt(&r, -1, "class_UncompiledData__start_position__int32_t", NULL);
    L->script_source = need(&r, "class_Script__source__Object", NULL);
    L->script_name = need(&r, "class_Script__name__Object", NULL);
    L->script_type = opt(&r, -1, "class_Script__type__SMI", NULL);
    L->script_line_ends = opt(&r, -1, "class_Script__line_ends__Object", NULL);
    L->script_eval_from_shared = opt(&r, -1, "class_Script__eval_from_shared_or_wrapped_arguments__Object",
                                     "class_Script__eval_from_shared_or_wrapped_arguments_or_sfi_table__Object");
    L->script_eval_from_position = opt(&r, -1, "class_Script__eval_from_position__SMI", NULL);
    L->msg_shared_info = opt(&r, -1, "class_JSMessageObject__shared_info__HeapObject",
                             "class_JSMessageObject__shared_info__Tagged_Object_");
    L->msg_bytecode_offset = opt(&r, -1, "class_JSMessageObject__bytecode_offset__Smi",
                                 "class_JSMessageObject__bytecode_offset__Tagged_Smi_");
    L->msg_start_position = opt(&r, -1, "class_JSMessageObject__start_position__SMI", NULL);
    L->scope_nparams_slot = opt(&r, -1, "scopeinfo_idx_nparams", NULL);
    L->scope_ncontextlocals_slot = opt(&r, -1, "scopeinfo_idx_ncontextlocals", NULL);
    L->scope_first_vars_slot = opt(&r, -1, "scopeinfo_idx_first_vars", NULL);
    L->bca_header = need(&r, "class_BytecodeArray__data__uintptr_t", NULL);
    L->bca_source_positions = fb->bca_source_positions;
    L->pos_table_flag_bits = fb->pos_table_flag_bits;
    L->api_exit_target = fb->api_exit_target;
    L->fixed_array_length = need(&r, "class_FixedArrayBase__length__SMI", NULL);
    L->fixed_array_data = need(&r, "class_FixedArray__data__uintptr_t", NULL);
    /* ByteArray: a FixedArrayBase; its bytes follow the length */
    L->bytearray_length = L->fixed_array_length;
    L->bytearray_data = L->fixed_array_data;
    L->code_instruction_start = opt(&r, fb->code_instruction_start, "class_Code__instruction_start__Address", NULL);
    L->code_instruction_size = opt(&r, fb->code_instruction_size, "class_Code__instruction_size__int", NULL);
    L->code_flags = opt(&r, fb->code_flags, "class_Code__flags__uint32_t", NULL);
    L->code_deopt_data = opt(&r, fb->code_deopt_data, "class_Code__deoptimization_data__FixedArray", NULL);
    L->istream_code = fb->istream_code;
    /* V8 10.2 puts the instructions inside the Code object; its "instruction_start" is their offset */
    L->code_inline_instructions = type_of(&r, "INSTRUCTION_STREAM_TYPE") < 0;
    L->code_kind_mask = opt(&r, -1, "CodeKindFieldMask", NULL);
    L->code_kind_shift = opt(&r, 0, "CodeKindFieldShift", NULL);
    L->code_source_positions = opt(&r, fb->code_source_positions, "class_Code__source_position_table__ByteArray", NULL);
    L->kind_interpreted = opt(&r, -1, "CodeKindInterpretedFunction", NULL);
    L->kind_baseline = opt(&r, -1, "CodeKindBaseline", NULL);
    /* CodeKind runs INTERPRETED_FUNCTION, BASELINE, MAGLEV, TURBOFAN in every version we support */
    L->kind_maglev = opt(&r, L->kind_baseline >= 0 ? L->kind_baseline + 1 : -1, "CodeKindMaglev", NULL);
    L->kind_turbofan = opt(&r, L->kind_baseline >= 0 ? L->kind_baseline + 2 : -1, "CodeKindTurbofan", NULL);
    L->deopt_inlined_count = opt(&r, 1, "DeoptimizationDataInlinedFunctionCountIndex", NULL);
    L->deopt_literals = opt(&r, 2, "DeoptimizationDataLiteralArrayIndex", NULL);
    L->deopt_inlining_positions = opt(&r, 7, "DeoptimizationDataInliningPositionsIndex", NULL);
    L->kind_builtin = opt(&r, -1, "CodeKindBuiltin", NULL);
    L->kind_bytecode_handler = opt(&r, -1, "CodeKindBytecodeHandler", NULL);

    L->fp_context = need(&r, "off_fp_context_or_frame_type", "off_fp_context");
    L->fp_function = need(&r, "off_fp_function", NULL);
    L->reg_js_function = js_function_reg(target_arch(v->t));
    L->fp_args = need(&r, "off_fp_args", NULL);
    L->fp_argc = fb->fp_argc;
    L->fp_bytecode_array = opt(&r, -1, "off_fp_bytecode_array", NULL);
    L->fp_bytecode_offset = opt(&r, -1, "off_fp_bytecode_offset", NULL);
    L->ft_entry = opt(&r, -1, "frametype_EntryFrame", NULL);
    L->ft_construct_entry = opt(&r, -1, "frametype_ConstructEntryFrame", NULL);
    L->ft_exit = opt(&r, -1, "frametype_ExitFrame", NULL);
    L->ft_builtin_exit = opt(&r, -1, "frametype_BuiltinExitFrame", NULL);
    L->ft_api_callback_exit = opt(&r, -1, "frametype_ApiCallbackExitFrame", NULL); /* V8 12+ */
    L->ft_interpreted = opt(&r, -1, "frametype_InterpretedFrame", NULL);
    L->ft_baseline = opt(&r, -1, "frametype_BaselineFrame", NULL);
    L->ft_maglev = opt(&r, -1, "frametype_MaglevFrame", NULL);
    L->ft_turbofan = opt(&r, -1, "frametype_TurbofanFrame", "frametype_OptimizedFrame");

    L->heap_number_value = opt(&r, 8, "class_HeapNumber__value__double", NULL);
    L->oddball_kind = opt(&r, -1, "class_Oddball__kind_offset__int", "class_Oddball__kind__int");
    L->oddball_to_string = opt(&r, -1, "class_Oddball__to_string__String", NULL);
    L->symbol_name = opt(&r, -1, "class_Symbol__name__Object", NULL);
    L->jsarray_length = opt(&r, fb->jsarray_length, "class_JSArray__length__Object", "class_JSArray__length__SMI");
    L->jsobj_properties =
        opt(&r, 8, "class_JSReceiver__raw_properties_or_hash__Object", "class_JSObject__properties__FixedArray");
    L->jsobj_elements = opt(&r, 16, "class_JSObject__elements__Object", NULL);
    L->view_byte_length = opt(&r, -1, "class_JSArrayBufferView__byte_length__size_t", NULL);
    L->view_byte_offset = opt(&r, -1, "class_JSArrayBufferView__byte_offset__size_t", NULL);
    L->typed_length = opt(&r, -1, "class_JSTypedArray__length__Object", "class_JSTypedArray__length__size_t");

    L->bf3_dict_shift = opt(&r, 21, "bit_field3_is_dictionary_map_shift", NULL);
    L->bf3_nod_mask = opt(&r, 0xffc00, "bit_field3_number_of_own_descriptors_mask", NULL);
    L->bf3_nod_shift = opt(&r, 10, "bit_field3_number_of_own_descriptors_shift", NULL);
    L->bf2_kind_mask = opt(&r, 0xfc, "bit_field2_elements_kind_mask", NULL);
    L->bf2_kind_shift = opt(&r, 2, "bit_field2_elements_kind_shift", NULL);
    L->desc_header = opt(&r, 24, "class_DescriptorArray__header_size__uintptr_t", NULL);
    L->desc_key = opt(&r, 0, "prop_desc_key", NULL);
    L->desc_details = opt(&r, 1, "prop_desc_details", NULL);
    L->desc_value = opt(&r, 2, "prop_desc_value", NULL);
    L->desc_size = opt(&r, 3, "prop_desc_size", NULL);
    L->prop_kind_mask = opt(&r, 1, "prop_kind_mask", NULL);
    L->prop_location_mask = opt(&r, 32, "prop_location_mask", NULL);
    L->prop_location_shift = opt(&r, 5, "prop_location_shift", NULL);
    L->prop_location_field = opt(&r, 0, "prop_location_Field", NULL);
    L->prop_index_mask = opt(&r, 0x1ff80000, "prop_index_mask", NULL);
    L->prop_index_shift = opt(&r, 19, "prop_index_shift", NULL);
    L->dict_prefix_start = opt(&r, 3, "namedictionary_prefix_start_index", NULL);
    L->dict_prefix_size = opt(&r, 3, "namedictionaryshape_prefix_size", NULL);
    L->dict_entry_size = opt(&r, 3, "namedictionaryshape_entry_size", NULL);
    L->numdict_prefix_size = opt(&r, 1, "numberdictionaryshape_prefix_size", NULL);
    L->numdict_entry_size = opt(&r, 3, "numberdictionaryshape_entry_size", NULL);
    L->kind_dictionary_elements = opt(&r, 13, "elements_dictionary_elements", NULL);
    L->type_fixed_double_array = type_of(&r, "FIXED_DOUBLE_ARRAY_TYPE");
    L->type_property_array = type_of(&r, "PROPERTY_ARRAY_TYPE");
    L->type_descriptor_array = type_of(&r, "DESCRIPTOR_ARRAY_TYPE");

    static const char *oddball_names[V8_ODDBALL_N] = {
        "OddballFalse",         "OddballTrue",      "OddballTheHole",         "OddballNull", "OddballUndefined",
        "OddballUninitialized", "OddballException", "OddballArgumentsMarker", "OddballOther"};
    for (int i = 0; i < V8_ODDBALL_N; i++) L->oddball_kinds[i] = opt(&r, -1, oddball_names[i], NULL);

    L->type_js_global_object = type_of(&r, "JS_GLOBAL_OBJECT_TYPE");
    L->type_js_date = type_of(&r, "JS_DATE_TYPE");
    L->type_js_regexp = type_of(&r, "JS_REG_EXP_TYPE");
    L->type_js_error = type_of(&r, "JS_ERROR_TYPE");
    L->type_js_map = type_of(&r, "JS_MAP_TYPE");
    L->type_js_set = type_of(&r, "JS_SET_TYPE");
    L->type_js_weak_map = type_of(&r, "JS_WEAK_MAP_TYPE");
    L->type_js_weak_set = type_of(&r, "JS_WEAK_SET_TYPE");
    L->type_js_promise = type_of(&r, "JS_PROMISE_TYPE");
    L->type_js_proxy = type_of(&r, "JS_PROXY_TYPE");
    L->type_js_data_view = type_of(&r, "JS_DATA_VIEW_TYPE");
    L->type_js_primitive_wrapper = type_of(&r, "JS_PRIMITIVE_WRAPPER_TYPE");
    L->type_property_cell = type_of(&r, "PROPERTY_CELL_TYPE");
    L->type_js_bound_function = type_of(&r, "JS_BOUND_FUNCTION_TYPE");
    L->type_swiss_dictionary = type_of(&r, "SWISS_NAME_DICTIONARY_TYPE");
    L->type_js_array_iterator = type_of(&r, "JS_ARRAY_ITERATOR_TYPE");
    { /* BIGINT_TYPE has no type_ entry: it sits between SYMBOL_TYPE and HEAP_NUMBER_TYPE */
        int sym = type_of(&r, "SYMBOL_TYPE"), num = type_of(&r, "HEAP_NUMBER_TYPE");
        L->type_bigint = sym >= 0 && num == sym + 2 ? sym + 1 : type_of(&r, "BIGINT_TYPE");
    }
    /* JSDate.value: a tagged Number up to V8 12, a raw float64 from V8 13 (read off Node 24 cores) */
    L->date_value = opt(&r, 24, "class_JSDate__value__Object", "class_JSDate__value__double");
    L->date_value_is_double = v->major >= 13;
    L->regexp_source = opt(&r, 32, "class_JSRegExp__source__Object", NULL);
    L->regexp_flags = opt(&r, L->regexp_source + 8, "class_JSRegExp__flags__SMI", NULL);
    L->promise_result = opt(&r, 24, "class_JSPromise__reactions_or_result__Object", NULL);
    L->promise_flags = opt(&r, 32, "class_JSPromise__flags__SMI", NULL);
    L->proxy_target = opt(&r, 16, "class_JSProxy__target__Object", NULL);
    L->proxy_handler = opt(&r, 24, "class_JSProxy__handler__Object", NULL);
    L->collection_table = opt(&r, 24, "class_JSCollection__table__Object", NULL);
    L->primitive_value = opt(&r, 24, "class_JSPrimitiveWrapper__value__Object", NULL);
    L->ab_backing_store = opt(&r, -1, "class_JSArrayBuffer__backing_store__uintptr_t", NULL);
    L->ab_byte_length = opt(&r, -1, "class_JSArrayBuffer__byte_length__size_t", NULL);
    L->view_buffer = opt(&r, 24, "class_JSArrayBufferView__buffer__Object", NULL);
    L->typed_external = opt(&r, -1, "class_JSTypedArray__external_pointer__uintptr_t", NULL);
    L->typed_base =
        opt(&r, L->typed_external >= 0 ? L->typed_external + 8 : -1, "class_JSTypedArray__base_pointer__Object", NULL);
    L->cell_name = opt(&r, 8, "class_PropertyCell__name__Name", NULL);
    L->cell_details = opt(&r, 16, "class_PropertyCell__property_details_raw__SMI", NULL);
    L->cell_value = opt(&r, 24, "class_PropertyCell__value__Object", NULL);
    L->prop_attr_shift = opt(&r, 2, "prop_attributes_shift", NULL);
    L->bound_target = opt(&r, 24, "class_JSBoundFunction__bound_target_function__JSReceiver", NULL);

    L->first_context_type = opt(&r, -1, "FirstContextType", NULL);
    L->last_context_type = opt(&r, -1, "LastContextType", NULL);
    /* V8 10-13 number the ten Context types in one order (Await, Block, Catch, DebugEvaluate,
       Eval, Function, Module, Native, Script, With): the script context is the last but one
       (checked on Node 18-24: the context a NativeContext's ScriptContextTable holds) */
    L->type_script_context =
        L->first_context_type >= 0 && L->last_context_type - L->first_context_type == 9 ? L->last_context_type - 1 : -1;
    L->type_map = type_of(&r, "MAP_TYPE");
    L->type_accessor_pair = type_of(&r, "ACCESSOR_PAIR_TYPE");
    { /* internalized strings (the string table's) differ from sequential ones by one type bit */
        int in = type_of(&r, "INTERNALIZED_ONE_BYTE_STRING_TYPE"), seq = type_of(&r, "SEQ_ONE_BYTE_STRING_TYPE");
        if (in < 0) in = type_of(&r, "ONE_BYTE_INTERNALIZED_STRING_TYPE"); /* V8 10 */
        if (seq < 0) seq = type_of(&r, "ONE_BYTE_STRING_TYPE");
        int bit = in >= 0 && seq >= 0 ? in ^ seq : 0;
        L->str_not_internalized = bit && !(bit & (bit - 1)) && (seq & bit) ? bit : -1;
    }
    L->type_js_global_proxy = type_of(&r, "JS_GLOBAL_PROXY_TYPE");
    L->type_source_text_module = type_of(&r, "SOURCE_TEXT_MODULE_TYPE");
    L->type_sfi = type_of(&r, "SHARED_FUNCTION_INFO_TYPE");
    L->type_function_template_info = type_of(&r, "FUNCTION_TEMPLATE_INFO_TYPE");
    L->type_call_handler_info = type_of(&r, "CALL_HANDLER_INFO_TYPE"); /* through V8 11 */
    L->type_script = type_of(&r, "SCRIPT_TYPE");
    L->type_js_message_object = type_of(&r, "JS_MESSAGE_OBJECT_TYPE");
    L->type_call_site_info = type_of(&r, "CALL_SITE_INFO_TYPE");
    L->type_error_stack_data = type_of(&r, "ERROR_STACK_DATA_TYPE");
    L->type_scope_info = type_of(&r, "SCOPE_INFO_TYPE");
    L->type_bytecode_array = type_of(&r, "BYTECODE_ARRAY_TYPE");
    L->type_bytecode_wrapper = type_of(&r, "BYTECODE_WRAPPER_TYPE"); /* V8 13 */
    L->type_code = type_of(&r, "CODE_TYPE");
    L->type_instruction_stream = type_of(&r, "INSTRUCTION_STREAM_TYPE");
    L->type_sfi_wrapper = type_of(&r, "SHARED_FUNCTION_INFO_WRAPPER_TYPE");
    L->type_heap_number = type_of(&r, "HEAP_NUMBER_TYPE");
    L->type_oddball = type_of(&r, "ODDBALL_TYPE");
    L->type_hole = type_of(&r, "HOLE_TYPE"); /* V8 12+: the hole is no longer an oddball */
    if (L->type_hole < 0) {
        /* V8 14 exports no HOLE_TYPE: it sits, in V8's alphabetical order of these types, just
           before INTERCEPTOR_INFO_TYPE, a number no type_ entry has (read off Node 25 and 26:
           272 and 274, a dictionary's deleted keys) */
        int ii = type_of(&r, "INTERCEPTOR_INFO_TYPE"), fv = type_of(&r, "FEEDBACK_VECTOR_TYPE");
        if (ii > fv && fv >= 0 && !type_named(v, ii - 1)) L->type_hole = ii - 1;
    }
    /* V8 13.6 and 14 export no FREE_SPACE_TYPE either: it is the unnamed type just before the
       hole (read off cores, the map of an empty page's only object: 268 on Node 24; on Node 25
       and 26, 271 and 273, where the heap walk then counts every object V8's snapshot does) */
    L->type_free_space = type_of(&r, "FREE_SPACE_TYPE");
    if (L->type_free_space < 0 && L->type_hole > 0 && !type_named(v, L->type_hole - 1))
        L->type_free_space = L->type_hole - 1;
    L->type_fixed_array = type_of(&r, "FIXED_ARRAY_TYPE");
    L->type_js_function = type_of(&r, "JS_FUNCTION_TYPE");
    L->type_js_array = type_of(&r, "JS_ARRAY_TYPE");
    L->type_js_object = type_of(&r, "JS_OBJECT_TYPE");
    L->type_symbol = type_of(&r, "SYMBOL_TYPE");
    L->type_byte_array = type_of(&r, "BYTE_ARRAY_TYPE");
    L->type_trusted_byte_array = type_of(&r, "TRUSTED_BYTE_ARRAY_TYPE");
    L->type_js_typed_array = type_of(&r, "JS_TYPED_ARRAY_TYPE");
    L->type_js_array_buffer = type_of(&r, "JS_ARRAY_BUFFER_TYPE");
    L->type_feedback_vector = type_of(&r, "FEEDBACK_VECTOR_TYPE");
    if (L->type_sfi < 0 && r.nmissing < 16) r.missing[r.nmissing++] = "type_SharedFunctionInfo";
    v8_layout_async(v);

    if (r.nmissing) {
        buf_t b = {0};
        for (int i = 0; i < r.nmissing; i++) buf_printf(&b, "%s%s", i ? ", " : "", r.missing[i]);
        diag_error(target_exe_path(v->t), 0, "V8 %s: postmortem metadata lacks %s; this node is not supported",
                   v->version, b.data);
        buf_free(&b);
        return -1;
    }
    return 0;
}

/* ---- async: generator objects and promise reactions (v8/async.c) ----
 * V8 exports the instance types, not the fields. The fields are V8's Torque field order after the
 * JSObject header (map, properties_or_hash, elements: 24 bytes), 8-byte tagged slots, identical in
 * V8 10.2-13.6 (read off Node 18, 20, 22, 24 cores: a JSAsyncFunctionObject is 88 bytes, its
 * promise at +80):
 *   JSGeneratorObject: function, context, receiver, input_or_debug_pos, resume_mode, continuation,
 *                      parameters_and_registers; JSAsyncFunctionObject adds promise; JSAsyncGenerator-
 *                      Object adds queue, is_awaiting
 *   PromiseReaction (a Struct: map first): next, reject_handler, fulfill_handler, promise_or_capability
 *   PromiseCapability: promise, resolve, reject;  AsyncGeneratorRequest: next, resume_mode, value, promise
 * JS_GENERATOR_OBJECT_TYPE has no metadata entry: it comes just before its subclasses, the first of
 * which is JS_ASYNC_FUNCTION_OBJECT_TYPE (read off Node 20 and 24 cores: 2105, 2109). */
void v8_layout_async(v8_t *v)
{
    resolver_t r = {v, {0}, 0};
    v8_layout_t *L = &v->L;
    L->type_js_async_function_object = type_of(&r, "JS_ASYNC_FUNCTION_OBJECT_TYPE");
    L->type_js_async_generator_object = type_of(&r, "JS_ASYNC_GENERATOR_OBJECT_TYPE");
    L->type_js_generator_object = type_of(&r, "JS_GENERATOR_OBJECT_TYPE");
    if (L->type_js_generator_object < 0 && L->type_js_async_function_object > 0)
        L->type_js_generator_object = L->type_js_async_function_object - 1;
    L->type_promise_reaction = type_of(&r, "PROMISE_REACTION_TYPE");
    L->type_promise_capability = type_of(&r, "PROMISE_CAPABILITY_TYPE");
    L->type_async_generator_request = type_of(&r, "ASYNC_GENERATOR_REQUEST_TYPE");
    /* JSFunction subtypes (class constructors, builtin constructors) come just before JS_FUNCTION_TYPE */
    L->type_first_js_function =
        (int)opt(&r, L->type_js_function >= 32 ? L->type_js_function - 32 : 0, "FirstJSFunctionType", NULL);
    L->gen_function = opt(&r, 24, "class_JSGeneratorObject__function__JSFunction", NULL);
    L->gen_context = L->gen_function + 8;
    L->gen_receiver = L->gen_function + 16;
    L->gen_input_or_debug_pos = L->gen_function + 24;
    L->gen_resume_mode = L->gen_function + 32;
    L->gen_continuation = L->gen_function + 40;
    L->gen_parameters_and_registers = L->gen_function + 48;
    L->async_fn_promise = L->gen_function + 56;
    L->async_gen_queue = L->gen_function + 56;
    L->async_gen_is_awaiting = L->gen_function + 64;
    L->gen_executing = -2;
    L->gen_closed = -1;
    /* V8 12 moved continuation_preserved_embedder_data to PromiseReaction's first field (read off
       Node 22 and 24 cores: undefined, then next = Smi 0, then the handlers) */
    int64_t rx = v->major >= 12 ? 8 : 0;
    L->reaction_next = 8 + rx;
    L->reaction_reject_handler = 16 + rx;
    L->reaction_fulfill_handler = 24 + rx;
    L->reaction_promise_or_capability = 32 + rx;
    L->async_sfi_data = L->sfi_function_data;
    /* An API object's embedder fields follow the JSObject header; V8 13 puts a cpp_heap_wrappable
       word first (read off Node 24 cores: 0, then Node's type tag, then the BaseObject pointer) */
    L->api_embedder_fields = v->major >= 13 ? 32 : 24;
    L->capability_promise = 8;
    L->gen_request_next = 8;
    L->gen_request_promise = 32;
    L->ctx_min_slots = 2;
    L->ctx_extension_slot = 2;
}
