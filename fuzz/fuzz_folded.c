/* libFuzzer target: the folded stacks reader (see text_reader_fuzz.h). */
#include "text_reader_fuzz.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) { return fuzz_text_reader("folded", data, size); }
