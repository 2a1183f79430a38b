#!/usr/bin/python3
"""Trains and exports terrarium-wm-tiny, a retrieval-augmented byte-level GPT-2-style world model.

Input: models/data/examples.jsonl, written by models/export-examples.ts (the app's own reader,
retrieval index and prompt renderer, so the bytes seen here are the bytes seen at inference). Each
line holds {trajectory, task, source, split, step, domain, prompt, promptNoContext, target}; the model
learns target bytes + EOS after the prompt (prompt format v2: the 2 nearest recorded transitions of
other tasks, then the action). The split (by task) is decided there, not here.

Reproduce (CPU, offline; see models/README.md):
  npx tsx models/export-examples.ts > models/data/examples.jsonl
  python3 models/train.py

Seeded and step-bound (the wall-clock guard only stops a run that would overrun; the shipped run
did not hit it), so a rerun on the same data repeats the run up to floating-point thread effects.
"""
import argparse
import hashlib
import json
import math
import os
import random
import shutil
import time

import torch
import torch.nn.functional as F

from tiny_gpt import EOS, PAD, VOCAB, TinyGpt, export_onnx, greedy, write_model_folder

HERE = os.path.dirname(os.path.abspath(__file__))
OUT = os.path.join(HERE, 'terrarium-wm-tiny')


def encode(example, n_positions, field='prompt'):
    prompt = list(example[field].encode('utf-8'))
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
    # bfloat16 matmuls (the CPU has native support) roughly double the tokens per second.
    with torch.autocast('cpu', dtype=torch.bfloat16):
        logits, _ = model(ids, mask, positions, fast=True)
    logits = logits.float()
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
    parser.add_argument('--max-seconds', type=float, default=2100)
    parser.add_argument('--batch', type=int, default=8)
    parser.add_argument('--no-context', type=float, default=0.15, help='share of training prompts without neighbors')
    parser.add_argument('--lr', type=float, default=3e-3)
    parser.add_argument('--n-layer', type=int, default=4)
    parser.add_argument('--n-embd', type=int, default=128)
    parser.add_argument('--n-head', type=int, default=4)
    parser.add_argument('--n-positions', type=int, default=1024)
    parser.add_argument('--seed', type=int, default=1234)
    parser.add_argument('--resume', default=None, help='continue from this state dict (models/data/model.pt)')
    parser.add_argument('--warmup', type=int, default=30)
    parser.add_argument('--eval-every', type=int, default=100)
    parser.add_argument('--stop-step', type=int, default=None,
                        help='stop after this step, the schedule still planned for --steps (replays a run the wall-clock guard ended)')
    parser.add_argument('--skip-final-eval', action='store_true', help='timing probes only')
    parser.add_argument('--out', default=OUT)
    args = parser.parse_args()

    OUT = args.out
    torch.set_num_threads(2)
    torch.manual_seed(args.seed)
    rng = random.Random(args.seed)
    os.makedirs(os.path.join(OUT, 'onnx'), exist_ok=True)

    with open(args.examples, 'rb') as f:
        raw = f.read()
    examples = [json.loads(line) for line in raw.decode('utf-8').splitlines()]
    train = [e for e in examples if e['split'] == 'train']
    heldout = [e for e in examples if e['split'] == 'heldout']
    train_tasks = {e['task'] for e in train}
    heldout_tasks = sorted({e['task'] for e in heldout})
    # The split is made by task in export-examples.ts; a task on both sides would be a leak.
    assert not train_tasks & set(heldout_tasks), 'a task is on both sides of the split'
    manifest_path = os.path.join(os.path.dirname(args.examples), 'manifest.json')
    with open(manifest_path, encoding='utf-8') as f:
        manifest = json.load(f)
    manifest['examples'] = {'file': 'models/data/examples.jsonl', 'lines': len(examples),
                            'sha256': hashlib.sha256(raw).hexdigest()}
    with open(os.path.join(OUT, 'data-manifest.json'), 'w', encoding='utf-8') as f:
        json.dump(manifest, f, indent=1)
    # The split file is written by export-examples.ts (which made the split); shipped as is.
    shutil.copyfile(os.path.join(os.path.dirname(args.examples), 'split.json'), os.path.join(OUT, 'split.json'))
    print(f'train {len(train)} transitions ({len(train_tasks)} tasks), held out {len(heldout)} ({len(heldout_tasks)} tasks)', flush=True)

    # Neighbor dropout: a share of the training examples come without retrieved context, so the
    # model also answers when the corpus has nothing like the action (and the no-context ablation
    # measures a model that has seen such prompts).
    drop = random.Random(args.seed + 2)
    enc_train = [encode(e, args.n_positions, 'promptNoContext' if drop.random() < args.no_context else 'prompt') for e in train]
    enc_held = [encode(e, args.n_positions) for e in heldout]
    eval_subset = random.Random(args.seed + 1).sample(range(len(enc_held)), min(64, len(enc_held)))

    model = TinyGpt(args.n_layer, args.n_embd, args.n_head, args.n_positions, VOCAB)
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
        if step % 10 == 0:
            log['train'].append({'step': step, 'loss': round(float(loss), 4), 'seconds': round(elapsed, 1)})
        if step % args.eval_every == 0 or step == args.steps:
            held = evaluate(model, enc_held, eval_subset, 32)
            log['heldout'].append({'step': step, 'loss': round(held, 4), 'seconds': round(elapsed, 1)})
            print(f'step {step} loss {float(loss):.3f} heldout(64) {held:.3f} {tokens / elapsed:.0f} tok/s {elapsed:.0f}s', flush=True)
        if args.stop_step is not None and step >= args.stop_step:
            print(f'stopping at step {step} (--stop-step)', flush=True)
            break
        if elapsed > args.max_seconds:
            print(f'stopping at step {step}: {elapsed:.0f}s wall clock budget reached', flush=True)
            break
    log['stepsRun'] = step
    log['trainSeconds'] = round(time.time() - started, 1)
    log['tokensSeen'] = tokens
    if args.skip_final_eval:
        return
    full = evaluate(model, enc_held, list(range(len(enc_held))), 32)
    log['finalHeldOutLoss'] = {'natsPerByte': round(full, 4), 'bitsPerByte': round(full / math.log(2), 4), 'transitions': len(enc_held)}
    print(f'final held-out loss {full:.4f} nats/byte', flush=True)
    with open(os.path.join(OUT, 'training-log.json'), 'w', encoding='utf-8') as f:
        json.dump(log, f, indent=1)
    torch.save(model.state_dict(), os.path.join(OUT, 'model.pt') if OUT != os.path.join(HERE, 'terrarium-wm-tiny') else os.path.join(HERE, 'data', 'model.pt'))
    export(model, args)
    write_greedy_reference(model, heldout, args)


# The fixed held-out prompt of greedy-reference.json: the first held-out tau2 retail step.
REFERENCE_SOURCE = 'tau2/retail'
REFERENCE_TOKENS = 160


def write_greedy_reference(model, heldout, args):
    example = next(e for e in heldout if e['source'] == REFERENCE_SOURCE)
    prompt_ids = list(example['prompt'].encode('utf-8'))
    out = greedy(model, prompt_ids, REFERENCE_TOKENS, args.n_positions, EOS)
    reference = {
        'source': example['source'], 'trajectory': example['trajectory'], 'step': example['step'],
        'maxTokens': REFERENCE_TOKENS, 'prompt': example['prompt'],
        'outputIds': out, 'output': bytes(out).decode('utf-8', errors='replace'),
    }
    with open(os.path.join(OUT, 'greedy-reference.json'), 'w', encoding='utf-8') as f:
        json.dump(reference, f, indent=1, ensure_ascii=False)
    print('greedy reference:', reference['output'][:200], flush=True)


def export(model, args):
    write_model_folder(OUT, args.n_layer, args.n_embd, args.n_head, args.n_positions,
                       {'tokenizer': 'bytes', 'promptFormatVersion': 2, 'promptNeighbors': 2})
    export_onnx(model, OUT, args.n_layer, args.n_embd, args.n_head)


if __name__ == '__main__':
    main()
