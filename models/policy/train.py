#!/usr/bin/python3
"""Trains and exports terrarium-policy-tiny, a byte-level policy that plays curriculum tasks.

Input: models/policy/data/examples.jsonl, written by models/policy/export-examples.ts: rollouts of
the scripted policy over the builtin seed tasks and their curriculum mutations (data Terrarium makes
itself), one line per step {episode, split, seed, task, tier, axis, step, prompt, target}. The
prompt is rendered by packages/curriculum's `renderPolicyPrompt` (policy prompt format v1); the
target is the action line and its newline. Nothing here knows the prompt's layout: the steps of an
episode are packed into one sequence only where a step's prompt extends the previous step's prompt
and action byte for byte (checked), and the loss is on the action bytes only.

Reproduce (CPU, offline, from the repository root; see models/README.md):
  npx tsx models/policy/export-examples.ts
  python3 models/policy/train.py

Seeded and step-bound; the wall-clock guard only stops a run that would overrun its budget.
"""
import argparse
import hashlib
import json
import math
import os
import random
import sys
import time

import torch

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.dirname(HERE))
from tiny_gpt import EOS, PAD, VOCAB, TinyGpt, export_onnx, greedy, write_model_folder  # noqa: E402

OUT = os.path.join(os.path.dirname(HERE), 'terrarium-policy-tiny')
NEWLINE = 10  # an action ends at its newline (the policy stops decoding there)
PROMPT_FORMAT_VERSION = 1  # must equal POLICY_PROMPT_FORMAT_VERSION of the examples (checked)


def packed(examples, n_positions):
    """Sequences of (ids, labels): the steps of an episode in one sequence while each prompt extends
    the text so far; labels are the action bytes (-100 elsewhere)."""
    sequences = []
    episodes = {}
    for example in examples:
        episodes.setdefault(example['episode'], []).append(example)
    restarts = 0
    for steps in episodes.values():
        steps.sort(key=lambda e: e['step'])
        text = b''
        ids, labels = [], []
        for example in steps:
            prompt = example['prompt'].encode('utf-8')
            target = example['target'].encode('utf-8')
            if text and prompt.startswith(text):
                rest = prompt[len(text):]
            else:
                if ids:
                    sequences.append((ids, labels))
                    restarts += 1
                ids, labels, rest = [], [], prompt
            ids += list(rest) + list(target)
            labels += [-100] * len(rest) + list(target)
            text = prompt + target
        sequences.append((ids[:n_positions], labels[:n_positions]))
    return sequences, restarts


def batches(encoded, batch_size, rng):
    """Length-bucketed batches: sorted within chunks of 50 batches so padding stays small."""
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
    """Summed negative log-likelihood of the labelled tokens (padding sits after them: causal)."""
    positions = torch.arange(ids.shape[1]).unsqueeze(0).expand_as(ids)
    with torch.autocast('cpu', dtype=torch.bfloat16):
        log_probs = model.target_log_probs(ids, positions)
    counted = labels[:, 1:] != -100
    loss = -(log_probs.float() * counted).sum()
    return loss, int(counted.sum())


def evaluate(model, encoded, batch_size=16):
    model.eval()
    total, count = 0.0, 0
    for start in range(0, len(encoded), batch_size):
        ids, labels, mask = collate(encoded, list(range(start, min(start + batch_size, len(encoded)))))
        loss, n = loss_of(model, ids, labels, mask)
        total += float(loss)
        count += n
    model.train()
    return total / max(count, 1)


def action_accuracy(model, steps, n_positions):
    """Share of held-out steps whose greedy action line is the scripted policy's, byte for byte."""
    right = 0
    for example in steps:
        out = greedy(model, list(example['prompt'].encode('utf-8')), 160, n_positions, NEWLINE)
        right += bytes(out) == example['target'].encode('utf-8')[:-1]
    return right / max(len(steps), 1)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument('--examples', default=os.path.join(HERE, 'data', 'examples.jsonl'))
    parser.add_argument('--out', default=OUT)
    parser.add_argument('--steps', type=int, default=1200)
    parser.add_argument('--max-seconds', type=float, default=840)
    parser.add_argument('--batch', type=int, default=8)
    parser.add_argument('--lr', type=float, default=3e-3)
    parser.add_argument('--warmup', type=int, default=40)
    parser.add_argument('--n-layer', type=int, default=4)
    parser.add_argument('--n-embd', type=int, default=96)
    parser.add_argument('--n-head', type=int, default=4)
    parser.add_argument('--n-positions', type=int, default=1024)
    parser.add_argument('--seed', type=int, default=1234)
    parser.add_argument('--eval-every', type=int, default=100)
    parser.add_argument('--accuracy-steps', type=int, default=300, help='held-out steps decoded for the action accuracy')
    args = parser.parse_args()

    torch.set_num_threads(1)
    torch.manual_seed(args.seed)
    rng = random.Random(args.seed)

    with open(args.examples, 'rb') as f:
        raw = f.read()
    manifest_path = os.path.join(os.path.dirname(args.examples), 'manifest.json')
    with open(manifest_path, encoding='utf-8') as f:
        manifest = json.load(f)
    sha = hashlib.sha256(raw).hexdigest()
    assert manifest['examples']['sha256'] == sha, 'examples.jsonl is not the file manifest.json describes'
    assert manifest['promptFormatVersion'] == PROMPT_FORMAT_VERSION, 'the examples use another prompt format'
    examples = [json.loads(line) for line in raw.decode('utf-8').splitlines()]
    train = [e for e in examples if e['split'] == 'train']
    heldout = [e for e in examples if e['split'] == 'heldout']
    enc_train, restarts_train = packed(train, args.n_positions)
    enc_held, restarts_held = packed(heldout, args.n_positions)
    print(f'train {len(train)} steps in {len(enc_train)} sequences ({restarts_train} restarts), held out {len(heldout)} steps in {len(enc_held)}', flush=True)

    model = TinyGpt(args.n_layer, args.n_embd, args.n_head, args.n_positions, VOCAB)
    params = sum(p.numel() for p in model.parameters())
    print(f'{params} parameters', flush=True)
    decay = [p for p in model.parameters() if p.dim() >= 2]
    no_decay = [p for p in model.parameters() if p.dim() < 2]
    opt = torch.optim.AdamW([{'params': decay, 'weight_decay': 0.1}, {'params': no_decay, 'weight_decay': 0.0}], lr=args.lr, betas=(0.9, 0.95))

    def lr_at(step):
        if step < args.warmup:
            return args.lr * (step + 1) / args.warmup
        progress = (step - args.warmup) / max(1, args.steps - args.warmup)
        return args.lr * (0.1 + 0.9 * 0.5 * (1 + math.cos(math.pi * min(1.0, progress))))

    log = {'args': vars(args), 'parameters': params, 'sequences': {'train': len(enc_train), 'heldout': len(enc_held)},
           'train': [], 'heldout': []}
    # The held-out curve is read on a fixed sample, the final figure on every held-out sequence.
    eval_sample = [enc_held[i] for i in random.Random(args.seed + 1).sample(range(len(enc_held)), min(64, len(enc_held)))]
    plan = []
    started = time.time()
    tokens = 0
    step = 0
    model.train()
    while step < args.steps:
        if not plan:
            plan = batches(enc_train, args.batch, rng)
        ids, labels, mask = collate(enc_train, plan.pop())
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
            held = evaluate(model, eval_sample)
            log['heldout'].append({'step': step, 'loss': round(held, 4), 'seconds': round(elapsed, 1)})
            print(f'step {step} loss {float(loss):.3f} heldout(64) {held:.3f} {tokens / elapsed:.0f} tok/s {elapsed:.0f}s', flush=True)
        if elapsed > args.max_seconds:
            print(f'stopping at step {step}: {elapsed:.0f}s wall clock budget reached', flush=True)
            break
    log['stepsRun'] = step
    log['trainSeconds'] = round(time.time() - started, 1)
    log['tokensSeen'] = tokens
    full = evaluate(model, enc_held)
    log['finalHeldOutLoss'] = {'natsPerByte': round(full, 4), 'bitsPerByte': round(full / math.log(2), 4), 'sequences': len(enc_held)}
    sample = random.Random(args.seed + 2).sample(heldout, min(args.accuracy_steps, len(heldout)))
    log['heldOutActionAccuracy'] = {'exact': round(action_accuracy(model, sample, args.n_positions), 4), 'steps': len(sample)}
    print(f"final held-out loss {full:.4f} nats/byte, action accuracy {log['heldOutActionAccuracy']['exact']}", flush=True)

    out = args.out
    write_model_folder(out, args.n_layer, args.n_embd, args.n_head, args.n_positions,
                       {'tokenizer': 'bytes', 'role': 'policy', 'policyPromptFormatVersion': PROMPT_FORMAT_VERSION})
    export_onnx(model, out, args.n_layer, args.n_embd, args.n_head)
    with open(os.path.join(out, 'training-log.json'), 'w', encoding='utf-8') as f:
        json.dump(log, f, indent=1)
    manifest['examples']['lines'] = len(examples)
    with open(os.path.join(out, 'data-manifest.json'), 'w', encoding='utf-8') as f:
        json.dump(manifest, f, indent=1)
    torch.save(model.state_dict(), os.path.join(HERE, 'data', 'model.pt'))
    write_greedy_reference(model, heldout, args.n_positions, out)


# The fixed held-out prompt of greedy-reference.json: the first held-out step at tier 3 or deeper
# that is not an episode's first step (the model has to read its own earlier actions).
REFERENCE_TOKENS = 64


def write_greedy_reference(model, heldout, n_positions, out_dir):
    example = next(e for e in heldout if e['tier'] >= 3 and e['step'] >= 2)
    prompt_ids = list(example['prompt'].encode('utf-8'))
    # Past the action's newline on purpose: more tokens compared, the same graph either way.
    out = greedy(model, prompt_ids, REFERENCE_TOKENS, n_positions, EOS)
    reference = {
        'episode': example['episode'], 'step': example['step'], 'maxTokens': REFERENCE_TOKENS,
        'prompt': example['prompt'], 'target': example['target'],
        'outputIds': out, 'output': bytes(out).decode('utf-8', errors='replace'),
    }
    with open(os.path.join(out_dir, 'greedy-reference.json'), 'w', encoding='utf-8') as f:
        json.dump(reference, f, indent=1, ensure_ascii=False)
    print('greedy reference:', json.dumps(reference['output']), flush=True)


if __name__ == '__main__':
    main()
