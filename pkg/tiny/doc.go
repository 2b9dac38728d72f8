// Package tiny builds and trains the embedded model of gasp (data/models/tiny): a small Llama-architecture
// language model and its own byte-level BPE tokenizer, trained with GoMLX on the pure-Go backend, on a corpus
// built from the benchmark tasks.
//
// The corpus (BuildCorpus) holds, for each task of its sources (DefaultSources: the 35 benchmark tasks of
// data/gad and the two fuzzing tasks of data/fuzz/tasks, XML documents for libxml2 and SQLite test scripts),
// chat exchanges in the Llama 3.1 Instruct template (tokenizer.ChatText): the task's prompt as the user
// message and, as the assistant's answer, the reference solution (benchmark tasks) or a random sentence of the
// task's grammar (grammar.Sample, at the source's derivation depths), each followed by <|eot_id|>. A fraction
// of the grammar-generated exchanges is held out. The tokenizer (tokenizer.Train) is trained on the prompts
// and the training answers.
//
// Train trains the model on windows of Options.SeqLen tokens: the window that ends each training exchange,
// and the prompts cut into windows. The model is written (Result.Save) in Hugging Face layout with the weight
// names of transformers' LlamaForCausalLM, so that pkg/llama loads it; the training graph (logitsGraph)
// computes what llama.Model.Forward computes, which the tests check. Everything is deterministic from
// Options.Seed: the corpus, the tokenizer, the initialization and the order of the batches.
//
// The held-out perplexity is that of the held-out answers' tokens (and their <|eot_id|>), each predicted from
// the window of Options.SeqLen tokens that ends its exchange; HeldOutPerplexity recomputes it from a saved
// model with pkg/llama.
package tiny
