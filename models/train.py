#!/usr/bin/python3
"""Trains and exports terrarium-wm-tiny, a byte-level GPT-2-style world model.

Input: models/data/examples.jsonl, written by models/export-examples.ts (the app's own reader and
prompt renderer, so the bytes seen here are the bytes seen at inference). Each line holds
{trajectory, step, domain, prompt, target}; the model learns target bytes + EOS after the prompt.

Reproduce (Debian 12, offline):
  apt-get install -y python3-torch python3-onnx python3-numpy libopenblas0-pthread
  npx tsx models/export-examples.ts > models/data/examples.jsonl
  /usr/bin/python3 models/train.py --steps 240

Seeded; the split is a hash of the trajectory key, not of the run.
"""
import argparse
import hashlib
import json
import math
import os
import random
import time

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F

HERE = os.path.dirname(os.path.abspath(__file__))
OUT = os.path.join(HERE, 'terrarium-wm-tiny')

EOS = 256  # <|endoftext|>: ends every observation; also the BOS id in config.json
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

    def forward(self, x, bias, past_k, past_v):
        b, t, d = x.shape
        hd = d // self.heads
        q, k, v = self.qkv(self.ln1(x)).split(d, dim=2)
        q = q.view(b, t, self.heads, hd).transpose(1, 2)
        k = k.view(b, t, self.heads, hd).transpose(1, 2)
        v = v.view(b, t, self.heads, hd).transpose(1, 2)
        if past_k is not None:
            k = torch.cat([past_k, k], dim=2)
            v = torch.cat([past_v, v], dim=2)
        att = (q @ k.transpose(-2, -1)) * (1.0 / math.sqrt(hd)) + bias
        att = torch.softmax(att, dim=-1)
        y = (att @ v).transpose(1, 2).reshape(b, t, d)
        x = x + self.proj(y)
        x = x + self.out(F.gelu(self.fc(self.ln2(x))))
        return x, k, v


class TinyGpt(nn.Module):
    def __init__(self, n_layer, n_embd, n_head, n_positions):
        super().__init__()
        self.wte = nn.Embedding(VOCAB, n_embd)
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

    def forward(self, input_ids, attention_mask, position_ids, past=None):
        """past: list of (key, value), each [batch, heads, past_len, head_dim], or None."""
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


def split_of(key):
    """Held out: 10% of trajectories, by a hash of the trajectory key (stable across runs)."""
    return 'heldout' if int(hashlib.sha1(key.encode('utf-8')).hexdigest(), 16) % 10 == 0 else 'train'


def encode(example, n_positions):
    prompt = list(example['prompt'].encode('utf-8'))
    target = list(example['target'].encode('utf-8')) + [EOS]
    ids = (prompt + target)[:n_positions]
    labels = ([-100] * len(prompt) + target)[:n_positions]
    return ids, labels


def batches(encoded, batch_size, rng):
    """Length-bucketed batches: sort within chunks of 50 batches so padding stays small."""
    order = list(range(len(encoded)))
    rng.shuffle(order)
    chunk = batch_size * 50
    out = []
    for start in range(0, len(order), chunk):
        part = sorted(order[start:start + chunk], key=lambda i: len(encoded[i][0]))
        out.extend(part[j:j + batch_size] for j in range(0, len(part), batch_size))
    rng.shuffle(out)
    return out


def collate(encoded, indices):
    width = max(len(encoded[i][0]) for i in indices)
    ids = torch.full((len(indices), width), PAD, dtype=torch.long)
    labels = torch.full((len(indices), width), -100, dtype=torch.long)
    mask = torch.zeros((len(indices), width), dtype=torch.long)
    for row, i in enumerate(indices):
        x, y = encoded[i]
        ids[row, :len(x)] = torch.tensor(x)
        labels[row, :len(y)] = torch.tensor(y)
        mask[row, :len(x)] = 1
    return ids, labels, mask


def loss_of(model, ids, labels, mask):
    positions = torch.arange(ids.shape[1]).unsqueeze(0).expand_as(ids)
    # PAD is outside the embedding's trained range of use but a valid id; it is masked anyway.
    logits, _ = model(ids, mask, positions)
    return F.cross_entropy(logits[:, :-1].reshape(-1, VOCAB), labels[:, 1:].reshape(-1), ignore_index=-100, reduction='sum'), int((labels[:, 1:] != -100).sum())


@torch.no_grad()
def evaluate(model, encoded, indices, batch_size):
    model.eval()
    total, count = 0.0, 0
    for start in range(0, len(indices), batch_size):
        ids, labels, mask = collate(encoded, indices[start:start + batch_size])
        loss, n = loss_of(model, ids, labels, mask)
        total += float(loss)
        count += n
    model.train()
    return total / max(count, 1)


def main():
    global OUT
    parser = argparse.ArgumentParser()
    parser.add_argument('--examples', default=os.path.join(HERE, 'data', 'examples.jsonl'))
    parser.add_argument('--steps', type=int, default=240)
    parser.add_argument('--max-seconds', type=float, default=780)
    parser.add_argument('--batch', type=int, default=16)
    parser.add_argument('--lr', type=float, default=3e-3)
    parser.add_argument('--n-layer', type=int, default=4)
    parser.add_argument('--n-embd', type=int, default=128)
    parser.add_argument('--n-head', type=int, default=4)
    parser.add_argument('--n-positions', type=int, default=512)
    parser.add_argument('--seed', type=int, default=1234)
    parser.add_argument('--resume', default=None, help='continue from this state dict (models/data/model.pt)')
    parser.add_argument('--warmup', type=int, default=30)
    parser.add_argument('--out', default=OUT)
    args = parser.parse_args()

    OUT = args.out
    torch.set_num_threads(2)
    torch.manual_seed(args.seed)
    rng = random.Random(args.seed)
    os.makedirs(os.path.join(OUT, 'onnx'), exist_ok=True)

    with open(args.examples, encoding='utf-8') as f:
        examples = [json.loads(line) for line in f]
    train = [e for e in examples if split_of(e['trajectory']) == 'train']
    heldout = [e for e in examples if split_of(e['trajectory']) == 'heldout']
    heldout_keys = sorted({e['trajectory'] for e in heldout})
    with open(os.path.join(OUT, 'split.json'), 'w', encoding='utf-8') as f:
        json.dump({
            'rule': 'held out when int(sha1(trajectory key), 16) % 10 == 0; key = "<file under shared/data>#<index in file>#<externalId>"',
            'trainTrajectories': len({e['trajectory'] for e in train}),
            'trainTransitions': len(train),
            'heldOutTransitions': len(heldout),
            'heldOut': heldout_keys,
        }, f, indent=1)
    print(f'train {len(train)} transitions, held out {len(heldout)} ({len(heldout_keys)} trajectories)', flush=True)

    enc_train = [encode(e, args.n_positions) for e in train]
    enc_held = [encode(e, args.n_positions) for e in heldout]
    eval_subset = random.Random(args.seed + 1).sample(range(len(enc_held)), min(128, len(enc_held)))

    model = TinyGpt(args.n_layer, args.n_embd, args.n_head, args.n_positions)
    if args.resume is not None:
        model.load_state_dict(torch.load(args.resume))
    params = sum(p.numel() for p in model.parameters())
    print(f'{params} parameters', flush=True)
    decay = [p for n, p in model.named_parameters() if p.dim() >= 2]
    no_decay = [p for n, p in model.named_parameters() if p.dim() < 2]
    opt = torch.optim.AdamW([{'params': decay, 'weight_decay': 0.1}, {'params': no_decay, 'weight_decay': 0.0}], lr=args.lr, betas=(0.9, 0.95))
    warmup = args.warmup

    def lr_at(step):
        if step < warmup:
            return args.lr * (step + 1) / warmup
        progress = (step - warmup) / max(1, args.steps - warmup)
        return args.lr * (0.1 + 0.9 * 0.5 * (1 + math.cos(math.pi * min(1.0, progress))))

    log = {'args': vars(args), 'parameters': params, 'train': [], 'heldout': []}
    plan = []
    started = time.time()
    tokens = 0
    step = 0
    while step < args.steps:
        if not plan:
            plan = batches(enc_train, args.batch, rng)
        indices = plan.pop()
        ids, labels, mask = collate(enc_train, indices)
        for group in opt.param_groups:
            group['lr'] = lr_at(step)
        loss, n = loss_of(model, ids, labels, mask)
        loss = loss / max(n, 1)
        opt.zero_grad(set_to_none=True)
        loss.backward()
        torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
        opt.step()
        tokens += int(mask.sum())
        step += 1
        elapsed = time.time() - started
        if step % 25 == 0:
            log['train'].append({'step': step, 'loss': round(float(loss), 4), 'seconds': round(elapsed, 1)})
        if step % 50 == 0 or step == args.steps:
            held = evaluate(model, enc_held, eval_subset, 32)
            log['heldout'].append({'step': step, 'loss': round(held, 4), 'seconds': round(elapsed, 1)})
            print(f'step {step} loss {float(loss):.3f} heldout(128) {held:.3f} {tokens / elapsed:.0f} tok/s {elapsed:.0f}s', flush=True)
        if elapsed > args.max_seconds:
            print(f'stopping at step {step}: {elapsed:.0f}s wall clock budget reached', flush=True)
            break
    log['stepsRun'] = step
    log['trainSeconds'] = round(time.time() - started, 1)
    log['tokensSeen'] = tokens
    full = evaluate(model, enc_held, list(range(len(enc_held))), 32)
    log['finalHeldOutLoss'] = {'natsPerByte': round(full, 4), 'bitsPerByte': round(full / math.log(2), 4), 'transitions': len(enc_held)}
    print(f'final held-out loss {full:.4f} nats/byte', flush=True)
    with open(os.path.join(OUT, 'training-log.json'), 'w', encoding='utf-8') as f:
        json.dump(log, f, indent=1)
    torch.save(model.state_dict(), os.path.join(OUT, 'model.pt') if OUT != os.path.join(HERE, 'terrarium-wm-tiny') else os.path.join(HERE, 'data', 'model.pt'))
    export(model, args)


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


def export(model, args):
    model.eval()
    wrapper = OnnxWrapper(model)
    hd = args.n_embd // args.n_head
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
    for i in range(args.n_layer):
        for kind in ('key', 'value'):
            past.append(torch.zeros((1, args.n_head, past_len, hd)))
            name = f'past_key_values.{i}.{kind}'
            out = f'present.{i}.{kind}'
            input_names.append(name)
            output_names.append(out)
            axes[name] = {0: 'batch_size', 2: 'past_sequence_length'}
            axes[out] = {0: 'batch_size', 2: 'total_sequence_length'}
    path = os.path.join(OUT, 'onnx', 'model.onnx')
    with torch.no_grad():
        torch.onnx.export(wrapper, (ids, mask, pos, *past), path, input_names=input_names, output_names=output_names,
                          dynamic_axes=axes, opset_version=14, do_constant_folding=True)
    write_folder(args)
    print(f'exported {path} ({os.path.getsize(path)} bytes)', flush=True)


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


def write_folder(args):
    config = {
        'model_type': 'gpt2',
        'architectures': ['GPT2LMHeadModel'],
        'vocab_size': VOCAB,
        'n_embd': args.n_embd,
        'n_head': args.n_head,
        'n_layer': args.n_layer,
        'n_positions': args.n_positions,
        'n_ctx': args.n_positions,
        'bos_token_id': EOS,
        'eos_token_id': EOS,
        'pad_token_id': PAD,
        'use_cache': True,
        'transformers.js_config': {'dtype': 'fp32'},
        'terrarium': {'tokenizer': 'bytes', 'promptFormatVersion': 1},
    }
    with open(os.path.join(OUT, 'config.json'), 'w', encoding='utf-8') as f:
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
    with open(os.path.join(OUT, 'tokenizer.json'), 'w', encoding='utf-8') as f:
        json.dump(tokenizer, f, ensure_ascii=False)
    with open(os.path.join(OUT, 'tokenizer_config.json'), 'w', encoding='utf-8') as f:
        json.dump({'tokenizer_class': 'GPT2Tokenizer', 'bos_token': '<|endoftext|>', 'eos_token': '<|endoftext|>',
                   'pad_token': '<|pad|>', 'model_max_length': args.n_positions, 'add_bos_token': False,
                   'clean_up_tokenization_spaces': False}, f, indent=1)


if __name__ == '__main__':
    main()
