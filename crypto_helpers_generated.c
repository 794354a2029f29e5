#include "/work/main/crypto/bindings_helper.h"

// Static wrappers

bool sm4rs_crypto_simd_usable__extern(void) { return sm4rs_crypto_simd_usable(); }
