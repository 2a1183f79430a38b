"""The small decoder Terrarium's bundled models share, its greedy decoding on the exported graph's
code path, and its ONNX export in the layout packages/inference loads (transformers.js / Optimum
names: input_ids, attention_mask, position_ids, past_key_values.N.key/value -> logits,
present.N.key/value; fp32 plus an int8-weight variant for the browser).

The model: pre-norm transformer blocks with rotary position embeddings, a tied output embedding,
and, when `pointer` is on, a copy head in the manner of pointer sentinel mixtures (Merity et al.
2016): the last hidden state attends over the earlier positions and over a sentinel; attention on
a position proposes the token that followed it, attention on the sentinel hands that share of the
probability to the vocabulary distribution. A position followed by a field marker proposes EOS
(`copy_eos`), so copying a whole recorded answer includes its end. A world model mostly copies (a
neighbor's answer, records the trajectory showed) and changes a few values; with the copy head a
small model trained on a CPU for hours learns that, where a plain decoder of the same size has to
grow induction heads first (models/README.md).

The copy head needs, for every earlier position, its copy key and its token id. Both are carried
as one more cache entry after the attention layers (`past_key_values.{n_layer}.key` holds the copy
keys, `.value` the token ids as floats in every channel), so the decoder and transformers.js feed
it like any other layer's cache: config.json counts it in `num_hidden_layers`.

Recipes (models/train.py: the world model; models/policy: the policy) import from here, so the
graph a model is trained with is the graph that ships.
"""
import json
import math
import os
import re

import torch
import torch.nn as nn
import torch.nn.functional as F


# The byte-level vocabulary of a byte model (the bundled policy; the world model has a BPE one):
# byte b is id b, then two specials.
EOS = 256  # <|endoftext|>: ends a generation; also the BOS id in config.json
PAD = 257  # <|pad|>: batch padding, never a label
VOCAB = 258


def rotate(x, cos, sin):
    """Rotary embedding of x [batch, heads, time, head_dim] by angles [batch, 1, time, head_dim/2]."""
    half = x.shape[-1] // 2
    x1, x2 = x[..., :half], x[..., half:]
    return torch.cat([x1 * cos - x2 * sin, x2 * cos + x1 * sin], dim=-1)


class Block(nn.Module):
    def __init__(self, d, heads):
        super().__init__()
        self.heads = heads
        self.ln1 = nn.LayerNorm(d)
        self.qkv = nn.Linear(d, 3 * d, bias=False)
        self.proj = nn.Linear(d, d, bias=False)
        self.ln2 = nn.LayerNorm(d)
        self.fc = nn.Linear(d, 4 * d, bias=False)
        self.out = nn.Linear(4 * d, d, bias=False)

    def forward(self, x, cos, sin, bias=None, past_k=None, past_v=None, fast=False):
        b, t, d = x.shape
        hd = d // self.heads
        q, k, v = self.qkv(self.ln1(x)).split(d, dim=2)
        q = rotate(q.view(b, t, self.heads, hd).transpose(1, 2), cos, sin)
        k = rotate(k.view(b, t, self.heads, hd).transpose(1, 2), cos, sin)
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
            y = torch.softmax(att, dim=-1) @ v
        y = y.transpose(1, 2).reshape(b, t, d)
        x = x + self.proj(y)
        x = x + self.out(F.gelu(self.fc(self.ln2(x))))
        return x, k, v


class TinyGpt(nn.Module):
    def __init__(self, n_layer, n_embd, n_head, n_positions, vocab_size, pointer=False, eos=0, copy_eos=()):
        super().__init__()
        self.n_head = n_head
        self.n_embd = n_embd
        self.vocab_size = vocab_size
        self.pointer = pointer
        self.wte = nn.Embedding(vocab_size, n_embd)
        self.blocks = nn.ModuleList([Block(n_embd, n_head) for _ in range(n_layer)])
        self.ln_f = nn.LayerNorm(n_embd)
        half = n_embd // n_head // 2
        self.register_buffer('inv_freq', 1.0 / (10000 ** (torch.arange(half).float() / half)), persistent=False)
        if pointer:
            self.copy_q = nn.Linear(n_embd, n_embd, bias=False)
            self.copy_k = nn.Linear(n_embd, n_embd, bias=False)
            # The sentinel: attention on it is the vocabulary distribution's share.
            self.null_key = nn.Parameter(torch.zeros(n_embd))
            # The token a copied position proposes: its successor, or EOS for a field marker.
            copy_value = torch.arange(vocab_size)
            copy_value[list(copy_eos)] = eos
            self.register_buffer('copy_value', copy_value, persistent=False)
        self.apply(self._init)
        for block in self.blocks:
            # Residual projections scaled down with depth (GPT-2's initialisation).
            nn.init.normal_(block.proj.weight, std=0.02 / math.sqrt(2 * n_layer))
            nn.init.normal_(block.out.weight, std=0.02 / math.sqrt(2 * n_layer))

    @staticmethod
    def _init(module):
        if isinstance(module, (nn.Linear, nn.Embedding)):
            nn.init.normal_(module.weight, mean=0.0, std=0.02)
        if isinstance(module, nn.Linear) and module.bias is not None:
            nn.init.zeros_(module.bias)

    def angles(self, position_ids):
        freqs = position_ids.unsqueeze(-1).float() * self.inv_freq
        freqs = freqs.unsqueeze(1)
        return freqs.cos(), freqs.sin()

    def hidden(self, input_ids, position_ids):
        """Training: the final hidden states of right-padded sequences (fused causal attention)."""
        cos, sin = self.angles(position_ids)
        x = self.wte(input_ids)
        for block in self.blocks:
            x, _, _ = block(x, cos, sin, fast=True)
        return self.ln_f(x)

    def target_log_probs(self, input_ids, position_ids):
        """Training: log p(input_ids[:, t+1] | input_ids[:, :t+1]) for every t, shape [batch, time-1]."""
        h = self.hidden(input_ids, position_ids)
        targets = input_ids[:, 1:]
        log_vocab = F.log_softmax((h[:, :-1] @ self.wte.weight.t()).float(), dim=-1)
        log_vocab = log_vocab.gather(-1, targets.unsqueeze(-1)).squeeze(-1)
        if not self.pointer:
            return log_vocab
        t = h.shape[1] - 1
        query = self.copy_q(h[:, :-1]).float()
        # Key j stands for "the token after position j", input_ids[:, j+1]; query t may use it when
        # that token is already in the sequence (j + 1 <= t).
        key = self.copy_k(h[:, :-1]).float()
        scale = 1.0 / math.sqrt(self.n_embd)
        scores = (query @ key.transpose(1, 2)) * scale
        usable = torch.ones(t, t, dtype=torch.bool).tril(-1)
        scores = scores.masked_fill(~usable, float('-inf'))
        null = (query @ self.null_key.float()).unsqueeze(-1) * scale
        attention = torch.softmax(torch.cat([null, scores], dim=-1), dim=-1)
        # The copy probability of the target: the attention on positions that propose that token.
        same = self.copy_value[input_ids[:, 1:]].unsqueeze(1) == targets.unsqueeze(2)
        copy = (attention[:, :, 1:] * same).sum(-1)
        return torch.log(attention[:, :, 0] * log_vocab.exp() + copy + 1e-9)

    def forward(self, input_ids, attention_mask, position_ids, past=None):
        """The exported graph: log-probabilities and the caches. past: one (key, value) per layer
        (and one more for the copy head), each [batch, heads, past_len, head_dim], or None."""
        t = input_ids.shape[1]
        total = attention_mask.shape[1]
        past_len = total - t
        # Query i sits at absolute position past_len + i and sees keys j <= past_len + i that the
        # attention mask keeps; written with aranges so the ONNX graph keeps dynamic lengths.
        query_pos = torch.arange(t).unsqueeze(1) + past_len
        key_pos = torch.arange(total).unsqueeze(0)
        keep = (key_pos <= query_pos).unsqueeze(0).unsqueeze(0) & (attention_mask > 0).unsqueeze(1).unsqueeze(2)
        bias = torch.where(keep, torch.tensor(0.0), torch.tensor(-1e9))
        cos, sin = self.angles(position_ids)
        x = self.wte(input_ids)
        presents = []
        for i, block in enumerate(self.blocks):
            pk, pv = (None, None) if past is None else past[i]
            x, k, v = block(x, cos, sin, bias, pk, pv)
            presents.append((k, v))
        h = self.ln_f(x)
        vocab = torch.softmax(h @ self.wte.weight.t(), dim=-1)
        if not self.pointer:
            return torch.log(vocab + 1e-9), presents
        b = h.shape[0]
        hd = self.n_embd // self.n_head
        new_keys = self.copy_k(h).view(b, t, self.n_head, hd).transpose(1, 2)
        new_ids = input_ids.float().unsqueeze(1).unsqueeze(-1).expand(b, self.n_head, t, hd)
        if past is None:
            keys, ids = new_keys, new_ids
        else:
            keys = torch.cat([past[len(self.blocks)][0], new_keys], dim=2)
            ids = torch.cat([past[len(self.blocks)][1], new_ids], dim=2)
        presents.append((keys, ids))
        # Key j (position j) proposes the token at j + 1: usable by query i when j + 1 <= past_len + i.
        flat_keys = keys.transpose(1, 2).reshape(b, total, self.n_embd)[:, :-1]
        next_ids = self.copy_value[ids[:, 0, 1:, 0].long()]
        query = self.copy_q(h)
        scale = 1.0 / math.sqrt(self.n_embd)
        scores = (query @ flat_keys.transpose(1, 2)) * scale
        usable = (key_pos[:, :-1] + 1 <= query_pos).unsqueeze(0) & (attention_mask[:, 1:] > 0).unsqueeze(1)
        scores = torch.where(usable, scores, torch.tensor(-1e9))
        null = (query @ self.null_key).unsqueeze(-1) * scale
        attention = torch.softmax(torch.cat([null, scores], dim=-1), dim=-1)
        # Each position's attention added to the token it proposes: a scatter, O(positions) per
        # query, where a one-hot matrix product would be O(positions × vocabulary).
        index = next_ids.unsqueeze(1).expand(b, t, total - 1)
        mixed = (attention[:, :, :1] * vocab).scatter_add(2, index, attention[:, :, 1:])
        return torch.log(mixed + 1e-9), presents

    def cache_layers(self):
        """Cache entries the exported graph takes: one per block, and one for the copy head."""
        return len(self.blocks) + (1 if self.pointer else 0)


@torch.no_grad()
def greedy(model, prompt_ids, max_tokens, n_positions, eos, banned=()):
    """Greedy decoding with the exported graph's code path (explicit attention, KV cache, fp32).
    `banned`: ids never generated (special tokens), as packages/inference's decoder does."""
    model.eval()
    ids = torch.tensor([prompt_ids])
    mask = torch.ones_like(ids)
    logits, past = model(ids, mask, torch.arange(len(prompt_ids)).unsqueeze(0))
    out = []
    while len(out) < max_tokens:
        last = logits[0, -1].clone()
        for token in banned:
            last[token] = float('-inf')
        token = int(torch.argmax(last))
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
        self.layers = model.cache_layers()

    def forward(self, input_ids, attention_mask, position_ids, *flat_past):
        past = [(flat_past[2 * i], flat_past[2 * i + 1]) for i in range(self.layers)]
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
    for i in range(model.cache_layers()):
        for kind in ('key', 'value'):
            past.append(torch.zeros((1, n_head, past_len, hd)))
            name = f'past_key_values.{i}.{kind}'
            out = f'present.{i}.{kind}'
            input_names.append(name)
            output_names.append(out)
            axes[name] = {0: 'batch_size', 2: 'past_sequence_length'}
            axes[out] = {0: 'batch_size', 2: 'total_sequence_length'}
    path = os.path.join(out_dir, 'onnx', 'model.onnx')
    with torch.no_grad():
        torch.onnx.export(wrapper, (ids, mask, pos, *past), path, input_names=input_names, output_names=output_names,
                          dynamic_axes=axes, opset_version=17, do_constant_folding=True, dynamo=False)
    print(f'exported {path} ({os.path.getsize(path)} bytes)', flush=True)
    finish_onnx(out_dir)


# The copy head's matrix products, kept in fp32 in the int8 file: on onnxruntime-web's WebGPU
# provider the int8 copy-key product came out wrong (Cast after MatMulInteger: values off by their
# own size, measured against wasm on the same inputs), which made WebGPU decode other tokens than
# every other runtime. Four small products; the file grows by 94 KB.
FP32_IN_INT8 = ['/model/copy_k/MatMul', '/model/copy_q/MatMul', '/model/MatMul_1', '/model/MatMul_2']


def vectors_as_columns(graph):
    """Rewrites `x @ v` with a 1-D constant `v` as `(x @ v[:, None])` squeezed: the same numbers
    (numpy's MatMul rules), but onnxruntime-web's WebGPU MatMul rejects a 1-D second operand
    ("shared dimension does not match"), so the fp32 file could not run there at all. The constant
    keeps its name; state_from_onnx reads either shape. Returns how many products it rewrote."""
    from onnx import helper, numpy_helper, TensorProto
    constants = {init.name: init for init in graph.initializer}
    uses = {}
    for node in graph.node:
        for name in node.input:
            uses[name] = uses.get(name, 0) + 1
    rewritten = 0
    for node in list(graph.node):
        vector = constants.get(node.input[1]) if node.op_type == 'MatMul' else None
        if vector is None or len(vector.dims) != 1:
            continue
        assert uses[vector.name] == 1, f'{vector.name} has other uses; reshaping it would change them'
        column = numpy_helper.to_array(vector).reshape(-1, 1)
        vector.CopyFrom(numpy_helper.from_array(column, vector.name))
        product = node.output[0]
        node.output[0] = f'{product}/column'
        axes = f'{product}/squeeze_axes'
        graph.initializer.append(helper.make_tensor(axes, TensorProto.INT64, [1], [-1]))
        squeeze = helper.make_node('Squeeze', [node.output[0], axes], [product], name=f'{node.name}/squeeze')
        graph.node.insert(list(graph.node).index(node) + 1, squeeze)
        rewritten += 1
    return rewritten


def new_entries_as_outputs(graph):
    """Adds `new_key_values.N.key/value`: the cache entries of the run's own tokens, which the graph
    already computes (the second input of each `present` Concat), as outputs of their own. A decoder
    that keeps the cache itself fetches those instead of `present`, so a run hands back a few
    positions instead of the whole cache: in onnxruntime-web every output is a new JavaScript
    array, and in Chromium here allocating and filling the whole cache's copy was most of a step
    (benchmarks/README.md). `present` stays, so transformers.js and Optimum run the file as before.
    Returns how many outputs it added (0 on a file that has them)."""
    from onnx import helper, TensorProto
    producers = {out: node for node in graph.node for out in node.output}
    have = {output.name for output in graph.output}
    added = 0
    for output in list(graph.output):
        match = re.fullmatch(r'present\.(\d+)\.(key|value)', output.name)
        if match is None:
            continue
        name = f'new_key_values.{match[1]}.{match[2]}'
        if name in have:
            continue
        concat = producers[output.name]
        axis = [a.i for a in concat.attribute if a.name == 'axis']
        past = f'past_key_values.{match[1]}.{match[2]}'
        assert concat.op_type == 'Concat' and axis == [2] and list(concat.input[:1]) == [past], \
            f'{output.name} is not Concat({past}, new entries) on the positions axis'
        graph.node.append(helper.make_node('Identity', [concat.input[1]], [name], name=f'/{name}/Identity'))
        dims = [d.dim_param or d.dim_value for d in output.type.tensor_type.shape.dim]
        dims[2] = 'sequence_length'
        graph.output.append(helper.make_tensor_value_info(name, TensorProto.FLOAT, dims))
        added += 1
    return added


def finish_onnx(out_dir):
    """The exported graph made runnable everywhere (vectors_as_columns), then its int8 variant.
    Idempotent: run again on a finished folder (`python3 tiny_gpt.py finish FOLDER`), it rewrites
    nothing and writes the same int8 file."""
    import onnx
    path = os.path.join(out_dir, 'onnx', 'model.onnx')
    model = onnx.load(path)
    rewritten = vectors_as_columns(model.graph)
    if new_entries_as_outputs(model.graph) + rewritten > 0:
        onnx.checker.check_model(model)
        onnx.save(model, path)
    # int8 weights for the browser (transformers.js names it model_quantized.onnx): dynamic
    # quantization of the matrix multiplications, activations quantized at run time.
    from onnxruntime.quantization import QuantType, quantize_dynamic
    names = {node.name for node in model.graph.node}
    # Only the world model has a copy head (the policy recipe exports the same graph without it).
    fp32 = FP32_IN_INT8 if any('copy_k' in name for name in names) else []
    missing = [name for name in fp32 if name not in names]
    assert not missing, f'{path}: no nodes {missing}; the copy head was exported under other names'
    quantized = os.path.join(out_dir, 'onnx', 'model_quantized.onnx')
    quantize_dynamic(path, quantized, weight_type=QuantType.QInt8, op_types_to_quantize=['MatMul', 'Gemm'],
                     nodes_to_exclude=fp32)
    print(f'quantized {quantized} ({os.path.getsize(quantized)} bytes)', flush=True)


def state_from_onnx(path, model):
    """The weights of a model.onnx that export_onnx wrote, as `model`'s state dict, so a run can start
    from the shipped folder (the checkpoints behind it are not committed). Named initializers keep
    their parameter names; the linear layers' weights were folded into transposed MatMul constants,
    numbered in the order the cache path traced them: per block qkv, proj, fc, out; then the tied
    output embedding; then the copy head's key and query projections."""
    import onnx
    from onnx import numpy_helper
    graph = onnx.load(path).graph
    named, matmuls = {}, []
    for init in graph.initializer:
        value = torch.from_numpy(numpy_helper.to_array(init).copy())
        if init.name.startswith('model.'):
            named[init.name[len('model.'):]] = value
        elif init.name.startswith('onnx::MatMul_'):
            matmuls.append((int(init.name.rsplit('_', 1)[1]), value))
    matmuls = [value.T.contiguous() for _, value in sorted(matmuls, key=lambda pair: pair[0])]
    order = [f'blocks.{i}.{name}.weight' for i in range(len(model.blocks)) for name in ('qkv', 'proj', 'fc', 'out')]
    order += ['wte.weight', 'copy_k.weight', 'copy_q.weight']
    assert len(matmuls) == len(order), f'{path}: {len(matmuls)} matrices, expected {len(order)}'
    state = dict(named)
    for name, value in zip(order, matmuls):
        if name == 'wte.weight':
            assert torch.equal(value, named['wte.weight']), 'the output embedding is not the tied input one'
            continue
        state[name] = value
    own = model.state_dict()
    for name, value in state.items():
        if value.dim() == 2 and value.shape[1] == 1 and own[name].dim() == 1:
            state[name] = value = value.reshape(own[name].shape)  # a vector finish_onnx made a column
        assert own[name].shape == value.shape, f'{name}: {tuple(value.shape)} in the file, {tuple(own[name].shape)} here'
    return state


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


if __name__ == '__main__':
    # python3 tiny_gpt.py finish FOLDER: finish_onnx on a folder this module exported.
    import sys
    if len(sys.argv) != 3 or sys.argv[1] != 'finish':
        sys.exit('usage: python3 tiny_gpt.py finish FOLDER')
    finish_onnx(sys.argv[2])
