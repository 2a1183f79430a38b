"""The small GPT-2-style decoder Terrarium's bundled models share, its greedy decoding on the exported
graph's code path, and its ONNX export in the layout packages/inference loads (transformers.js /
Optimum names: input_ids, attention_mask, position_ids, past_key_values.N.key/value -> logits,
present.N.key/value; fp32 plus an int8-weight variant for the browser).

Recipes (models/train.py: the world model; models/policy/train.py: the policy) import from here,
so the graph a model is trained with is the graph that ships.
"""
import json
import math
import os

import torch
import torch.nn as nn
import torch.nn.functional as F

# The byte-level vocabulary every bundled model uses: byte b is id b, then two specials.
EOS = 256  # <|endoftext|>: ends a world model's observation; also the BOS id in config.json
PAD = 257  # <|pad|>: batch padding, never a label
VOCAB = 258


class Block(nn.Module):
    def __init__(self, d, heads):
        super().__init__()
        self.heads = heads
        self.ln1 = nn.LayerNorm(d)
        self.qkv = nn.Linear(d, 3 * d)
        self.proj = nn.Linear(d, d)
        self.ln2 = nn.LayerNorm(d)
        self.fc = nn.Linear(d, 4 * d)
        self.out = nn.Linear(4 * d, d)

    def forward(self, x, bias, past_k, past_v, fast=False):
        b, t, d = x.shape
        hd = d // self.heads
        q, k, v = self.qkv(self.ln1(x)).split(d, dim=2)
        q = q.view(b, t, self.heads, hd).transpose(1, 2)
        k = k.view(b, t, self.heads, hd).transpose(1, 2)
        v = v.view(b, t, self.heads, hd).transpose(1, 2)
        if past_k is not None:
            k = torch.cat([past_k, k], dim=2)
            v = torch.cat([past_v, v], dim=2)
        if fast:
            # Training only: batches are right-padded, so a causal mask alone keeps every real
            # token from seeing padding; the fused kernel is several times faster on CPU.
            y = F.scaled_dot_product_attention(q, k, v, is_causal=True)
        else:
            att = (q @ k.transpose(-2, -1)) * (1.0 / math.sqrt(hd)) + bias
            att = torch.softmax(att, dim=-1)
            y = att @ v
        y = y.transpose(1, 2).reshape(b, t, d)
        x = x + self.proj(y)
        x = x + self.out(F.gelu(self.fc(self.ln2(x))))
        return x, k, v


class TinyGpt(nn.Module):
    def __init__(self, n_layer, n_embd, n_head, n_positions, vocab_size):
        super().__init__()
        self.wte = nn.Embedding(vocab_size, n_embd)
        self.wpe = nn.Embedding(n_positions, n_embd)
        self.blocks = nn.ModuleList([Block(n_embd, n_head) for _ in range(n_layer)])
        self.ln_f = nn.LayerNorm(n_embd)
        self.apply(self._init)

    @staticmethod
    def _init(module):
        if isinstance(module, (nn.Linear, nn.Embedding)):
            nn.init.normal_(module.weight, mean=0.0, std=0.02)
        if isinstance(module, nn.Linear) and module.bias is not None:
            nn.init.zeros_(module.bias)

    def forward(self, input_ids, attention_mask, position_ids, past=None, fast=False):
        """past: list of (key, value), each [batch, heads, past_len, head_dim], or None."""
        if fast:
            x = self.wte(input_ids) + self.wpe(position_ids)
            for block in self.blocks:
                x, _, _ = block(x, None, None, None, fast=True)
            return self.ln_f(x) @ self.wte.weight.t(), []
        t = input_ids.shape[1]
        total = attention_mask.shape[1]
        past_len = total - t
        # Query i sits at absolute position past_len + i and sees keys j <= past_len + i that the
        # attention mask keeps; written with aranges so the ONNX graph keeps dynamic lengths.
        query_pos = torch.arange(t).unsqueeze(1) + past_len
        key_pos = torch.arange(total).unsqueeze(0)
        causal = key_pos <= query_pos
        keep = causal.unsqueeze(0).unsqueeze(0) & (attention_mask > 0).unsqueeze(1).unsqueeze(2)
        bias = torch.where(keep, torch.tensor(0.0), torch.tensor(-1e9))
        x = self.wte(input_ids) + self.wpe(position_ids)
        presents = []
        for i, block in enumerate(self.blocks):
            pk, pv = (None, None) if past is None else past[i]
            x, k, v = block(x, bias, pk, pv)
            presents.append((k, v))
        logits = self.ln_f(x) @ self.wte.weight.t()
        return logits, presents


@torch.no_grad()
def greedy(model, prompt_ids, max_tokens, n_positions, eos):
    """Greedy decoding with the exported graph's code path (explicit attention, KV cache, fp32)."""
    model.eval()
    ids = torch.tensor([prompt_ids])
    mask = torch.ones_like(ids)
    logits, past = model(ids, mask, torch.arange(len(prompt_ids)).unsqueeze(0))
    out = []
    while len(out) < max_tokens:
        token = int(torch.argmax(logits[0, -1]))
        if token == eos:
            break
        out.append(token)
        position = len(prompt_ids) + len(out) - 1
        if position + 1 >= n_positions:
            break
        mask = torch.ones((1, position + 1), dtype=torch.long)
        logits, past = model(torch.tensor([[token]]), mask, torch.tensor([[position]]), past)
    return out


class OnnxWrapper(nn.Module):
    """Flat inputs/outputs with the names transformers.js and Optimum use for decoder-only models."""

    def __init__(self, model):
        super().__init__()
        self.model = model
        self.n_layer = len(model.blocks)

    def forward(self, input_ids, attention_mask, position_ids, *flat_past):
        past = [(flat_past[2 * i], flat_past[2 * i + 1]) for i in range(self.n_layer)]
        logits, presents = self.model(input_ids, attention_mask, position_ids, past)
        flat = []
        for k, v in presents:
            flat.extend([k, v])
        return (logits, *flat)


def export_onnx(model, out_dir, n_layer, n_embd, n_head):
    """Writes onnx/model.onnx (fp32, KV-cache layout) and onnx/model_quantized.onnx (int8 weights)."""
    model.eval()
    wrapper = OnnxWrapper(model)
    hd = n_embd // n_head
    past_len, seq = 2, 3
    ids = torch.tensor([[1, 2, 3]])
    mask = torch.ones((1, past_len + seq), dtype=torch.long)
    pos = torch.arange(past_len, past_len + seq).unsqueeze(0)
    past = []
    input_names = ['input_ids', 'attention_mask', 'position_ids']
    output_names = ['logits']
    axes = {
        'input_ids': {0: 'batch_size', 1: 'sequence_length'},
        'attention_mask': {0: 'batch_size', 1: 'total_sequence_length'},
        'position_ids': {0: 'batch_size', 1: 'sequence_length'},
        'logits': {0: 'batch_size', 1: 'sequence_length'},
    }
    for i in range(n_layer):
        for kind in ('key', 'value'):
            past.append(torch.zeros((1, n_head, past_len, hd)))
            name = f'past_key_values.{i}.{kind}'
            out = f'present.{i}.{kind}'
            input_names.append(name)
            output_names.append(out)
            axes[name] = {0: 'batch_size', 2: 'past_sequence_length'}
            axes[out] = {0: 'batch_size', 2: 'total_sequence_length'}
    os.makedirs(os.path.join(out_dir, 'onnx'), exist_ok=True)
    path = os.path.join(out_dir, 'onnx', 'model.onnx')
    with torch.no_grad():
        torch.onnx.export(wrapper, (ids, mask, pos, *past), path, input_names=input_names, output_names=output_names,
                          dynamic_axes=axes, opset_version=14, do_constant_folding=True, dynamo=False)
    print(f'exported {path} ({os.path.getsize(path)} bytes)', flush=True)
    # int8 weights for the browser (transformers.js names it model_quantized.onnx): dynamic
    # quantization of the matrix multiplications, activations quantized at run time.
    from onnxruntime.quantization import QuantType, quantize_dynamic
    quantized = os.path.join(out_dir, 'onnx', 'model_quantized.onnx')
    quantize_dynamic(path, quantized, weight_type=QuantType.QInt8, op_types_to_quantize=['MatMul', 'Gemm'])
    print(f'quantized {quantized} ({os.path.getsize(quantized)} bytes)', flush=True)


def bytes_to_unicode():
    """GPT-2's printable stand-ins for the 256 bytes, so a ByteLevel BPE with no merges maps byte b to id b."""
    bs = list(range(ord('!'), ord('~') + 1)) + list(range(ord('¡'), ord('¬') + 1)) + list(range(ord('®'), ord('ÿ') + 1))
    cs = bs[:]
    n = 0
    for b in range(256):
        if b not in bs:
            bs.append(b)
            cs.append(256 + n)
            n += 1
    return {b: chr(c) for b, c in zip(bs, cs)}


def write_model_folder(out_dir, n_layer, n_embd, n_head, n_positions, terrarium):
    """config.json (GPT-2 names, with the model's own `terrarium` block), tokenizer.json and
    tokenizer_config.json of the byte-level vocabulary: what transformers.js and
    packages/inference read next to onnx/."""
    config = {
        'model_type': 'gpt2',
        'architectures': ['GPT2LMHeadModel'],
        'vocab_size': VOCAB,
        'n_embd': n_embd,
        'n_head': n_head,
        'n_layer': n_layer,
        'n_positions': n_positions,
        'n_ctx': n_positions,
        'bos_token_id': EOS,
        'eos_token_id': EOS,
        'pad_token_id': PAD,
        'use_cache': True,
        'transformers.js_config': {'dtype': 'fp32'},
        'terrarium': terrarium,
    }
    os.makedirs(out_dir, exist_ok=True)
    with open(os.path.join(out_dir, 'config.json'), 'w', encoding='utf-8') as f:
        json.dump(config, f, indent=1)
    mapping = bytes_to_unicode()
    vocab = {mapping[b]: b for b in range(256)}
    vocab['<|endoftext|>'] = EOS
    vocab['<|pad|>'] = PAD
    tokenizer = {
        'version': '1.0',
        'truncation': None,
        'padding': None,
        'added_tokens': [
            {'id': EOS, 'content': '<|endoftext|>', 'single_word': False, 'lstrip': False, 'rstrip': False, 'normalized': False, 'special': True},
            {'id': PAD, 'content': '<|pad|>', 'single_word': False, 'lstrip': False, 'rstrip': False, 'normalized': False, 'special': True},
        ],
        'normalizer': None,
        'pre_tokenizer': {'type': 'ByteLevel', 'add_prefix_space': False, 'trim_offsets': True, 'use_regex': False},
        'post_processor': None,
        'decoder': {'type': 'ByteLevel', 'add_prefix_space': False, 'trim_offsets': True, 'use_regex': False},
        'model': {'type': 'BPE', 'dropout': None, 'unk_token': None, 'continuing_subword_prefix': '', 'end_of_word_suffix': '',
                  'fuse_unk': False, 'byte_fallback': False, 'vocab': vocab, 'merges': []},
    }
    with open(os.path.join(out_dir, 'tokenizer.json'), 'w', encoding='utf-8') as f:
        json.dump(tokenizer, f, ensure_ascii=False)
    with open(os.path.join(out_dir, 'tokenizer_config.json'), 'w', encoding='utf-8') as f:
        json.dump({'tokenizer_class': 'GPT2Tokenizer', 'bos_token': '<|endoftext|>', 'eos_token': '<|endoftext|>',
                   'pad_token': '<|pad|>', 'model_max_length': n_positions, 'add_bos_token': False,
                   'clean_up_tokenization_spaces': False}, f, indent=1)
