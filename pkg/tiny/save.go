package tiny

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strconv"

	"github.com/gasplab/gasp/pkg/hf"
)

// Save writes the model directory in Hugging Face layout: config.json, model.safetensors (float32),
// tokenizer.json, tokenizer_config.json and generation_config.json.
func (r *Result) Save(dir string, meta map[string]string) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	cfgJSON, err := json.MarshalIndent(r.Config, "", "  ")
	if err != nil {
		return err
	}
	var ts []hf.Tensor
	for _, name := range r.Config.WeightNames() {
		shape, _ := r.Config.WeightShape(name)
		ts = append(ts, hf.Float32Tensor(name, shape, r.Weights[name]))
	}
	md := map[string]string{"format": "pt", "held_out_perplexity": strconv.FormatFloat(r.HeldOutPPL, 'f', 4, 64)}
	for k, v := range meta {
		md[k] = v
	}
	if err := hf.WriteSafetensors(filepath.Join(dir, "model.safetensors"), ts, md); err != nil {
		return err
	}
	tc, err := json.MarshalIndent(map[string]any{
		"bos_token":                    "<|begin_of_text|>",
		"eos_token":                    "<|eot_id|>",
		"clean_up_tokenization_spaces": true,
		"model_max_length":             r.Config.MaxPositionEmbeddings,
		"tokenizer_class":              "PreTrainedTokenizerFast",
		"model_input_names":            []string{"input_ids", "attention_mask"},
		"chat_template":                ChatTemplate,
	}, "", "  ")
	if err != nil {
		return err
	}
	gen, err := json.MarshalIndent(map[string]any{
		"bos_token_id": r.Config.BOSTokenID,
		"eos_token_id": r.Config.EOSTokenIDs,
		"do_sample":    true,
		"temperature":  1.0,
	}, "", "  ")
	if err != nil {
		return err
	}
	files := map[string][]byte{
		"config.json":            append(cfgJSON, '\n'),
		"tokenizer.json":         r.TokenizerJSON,
		"tokenizer_config.json":  append(tc, '\n'),
		"generation_config.json": append(gen, '\n'),
	}
	for name, data := range files {
		if err := os.WriteFile(filepath.Join(dir, name), data, 0o644); err != nil {
			return err
		}
	}
	return nil
}

// ChatTemplate is the chat template of tokenizer_config.json: that of Llama 3.1 Instruct for a conversation
// without tools (see tokenizer.ChatText).
const ChatTemplate = `{{- bos_token }}
{%- if not date_string is defined %}{%- set date_string = "26 Jul 2024" %}{%- endif %}
{%- if messages[0]['role'] == 'system' %}{%- set system_message = messages[0]['content']|trim %}{%- set messages = messages[1:] %}{%- else %}{%- set system_message = "" %}{%- endif %}
{{- "<|start_header_id|>system<|end_header_id|>\n\n" }}
{{- "Cutting Knowledge Date: December 2023\n" }}
{{- "Today Date: " + date_string + "\n\n" }}
{{- system_message }}
{{- "<|eot_id|>" }}
{%- for message in messages %}
{{- '<|start_header_id|>' + message['role'] + '<|end_header_id|>\n\n'+ message['content'] | trim + '<|eot_id|>' }}
{%- endfor %}
{%- if add_generation_prompt %}{{- '<|start_header_id|>assistant<|end_header_id|>\n\n' }}{%- endif %}
`
