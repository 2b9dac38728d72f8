// llama-logits prints llama.cpp's next-token logits after a list of token ids, one per line, so that
// scripts/lm1b/check-gguf.sh can compare them with "gasp logits" on the checkpoint the GGUF was exported
// from. KV cache in f32, one thread: the check is about the conversion, not speed.
//
//	llama-logits MODEL.gguf ID ID ...
#include <stdio.h>
#include <stdlib.h>

#include "llama.h"

int main(int argc, char **argv) {
    if (argc < 3) {
        fprintf(stderr, "usage: %s MODEL.gguf ID [ID ...]\n", argv[0]);
        return 2;
    }
    int n = argc - 2;
    llama_token *ids = malloc(sizeof(llama_token) * n);
    for (int i = 0; i < n; i++) {
        ids[i] = (llama_token) atoi(argv[i + 2]);
    }
    llama_backend_init();
    struct llama_model_params mp = llama_model_default_params();
    struct llama_model *model = llama_model_load_from_file(argv[1], mp);
    if (!model) {
        fprintf(stderr, "llama-logits: cannot load %s\n", argv[1]);
        return 1;
    }
    struct llama_context_params cp = llama_context_default_params();
    cp.n_ctx = 256;
    cp.n_batch = 256;
    cp.n_threads = cp.n_threads_batch = 1;
    cp.type_k = cp.type_v = GGML_TYPE_F32;
    struct llama_context *ctx = llama_init_from_model(model, cp);
    if (!ctx || llama_decode(ctx, llama_batch_get_one(ids, n)) != 0) {
        fprintf(stderr, "llama-logits: decode failed\n");
        return 1;
    }
    const float *logits = llama_get_logits_ith(ctx, -1);
    int nv = llama_vocab_n_tokens(llama_model_get_vocab(model));
    for (int i = 0; i < nv; i++) {
        printf("%.9g\n", logits[i]);
    }
    llama_free(ctx);
    llama_model_free(model);
    return 0;
}
