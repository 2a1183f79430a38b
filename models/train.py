#!/usr/bin/python3
"""Trains and exports terrarium-wm-tiny, the retrieval-augmented world model that ships with Terrarium.

Input (models/data, written by models/export-examples.ts and models/train_tokenizer.py): examples.jsonl
holds, per transition, the prompt and target token ids built by the app's own prompt builder
(packages/inference `buildPrompt`: the earlier transition the action refers to, the nearest recorded
transitions of other tasks, the action), training transitions several times with neighbors drawn
differently; tokenizer.json is the BPE it was built with. The split (by task) is decided there.

The model (models/tiny_gpt.py): rotary-position decoder blocks with a copy head. Loss: the target's
tokens and EOS, plus the prompt's tokens at a lower weight (they are real observations and actions
too, and teach the format).

Reproduce (CPU, offline; see models/README.md):
  npx tsx models/export-examples.ts --corpus && python3 models/train_tokenizer.py
  npx tsx models/export-examples.ts
  python3 models/train.py

Seeded and step-bound: the wall-clock guard only stops a run that would overrun, and --stop-step
replays a run it stopped. Checkpoints (model and optimizer) go to models/data/checkpoint.pt every
--checkpoint-every steps; --resume continues from one with the same data and schedule.
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

from tiny_gpt import TinyGpt, export_onnx, greedy, state_from_onnx

HERE = os.path.dirname(os.path.abspath(__file__))
DATA = os.path.join(HERE, 'data')
OUT = os.path.join(HERE, 'terrarium-wm-tiny')

# The fixed held-out prompt of greedy-reference.json: the first held-out tau2 retail step.
REFERENCE_SOURCE = 'tau2/retail'
REFERENCE_TOKENS = 160


def read_json(path):
    with open(path, encoding='utf-8') as f:
        return json.load(f)


def specials_of(tokenizer_json):
    return {token['content']: token['id'] for token in tokenizer_json['added_tokens'] if token['special']}


def first_neighbor_answer(prompt, answer_marker, markers):
    """The first recorded neighbor's observation in a prompt: the ids after its first answer marker,
    up to the next marker (a cut one ends with the cut marker); None when the prompt has none."""
    if answer_marker not in prompt:
        return None
    start = prompt.index(answer_marker) + 1
    end = start
    while end < len(prompt) and prompt[end] not in markers:
        end += 1
    return prompt[start:end]


def differing_positions(answer, target):
    """Which target ids are not part of the longest common blocks with the neighbor's answer: what
    leaning on the neighbor (the decoder's anchor) would get wrong."""
    from difflib import SequenceMatcher
    copied = [False] * len(target)
    for block in SequenceMatcher(None, answer, target, autojunk=False).get_matching_blocks():
        for k in range(block.b, block.b + block.size):
            copied[k] = True
    return [not c for c in copied]


def sequence(example, n_positions, eos, prompt_weight, field='prompt', differ_weight=1.0, neighbor=None):
    """ids, loss weights and prompt length of one example. With differ_weight != 1 and `neighbor`
    = (answer marker id, all marker ids), the target's ids that differ from the first neighbor's
    answer weigh differ_weight (the rest, and EOS, 1)."""
    prompt = example[field]
    target = example['target'] + [eos]
    ids = (prompt + target)[:n_positions]
    target_weights = [1.0] * len(target)
    answer = None if differ_weight == 1.0 or neighbor is None else first_neighbor_answer(prompt, *neighbor)
    if answer:
        for k, differs in enumerate(differing_positions(answer, example['target'])):
            if differs:
                target_weights[k] = differ_weight
    weights = ([prompt_weight] * len(prompt) + target_weights)[:n_positions]
    return ids, weights, len(prompt)


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


def collate(encoded, indices, pad):
    width = max(len(encoded[i][0]) for i in indices)
    ids = torch.full((len(indices), width), pad, dtype=torch.long)
    weights = torch.zeros((len(indices), width))
    for row, i in enumerate(indices):
        x, w, _ = encoded[i]
        ids[row, :len(x)] = torch.tensor(x)
        weights[row, :len(w)] = torch.tensor(w)
    return ids, weights


def log_probs(model, ids):
    positions = torch.arange(ids.shape[1]).unsqueeze(0).expand_as(ids)
    # bfloat16 matmuls (the CPU has native support) roughly double the tokens per second.
    with torch.autocast('cpu', dtype=torch.bfloat16):
        return model.target_log_probs(ids, positions)


@torch.no_grad()
def target_loss(model, encoded, indices, pad, batch_size=8):
    """Mean negative log-likelihood per target token (observation and EOS), held-out prompts as built."""
    model.eval()
    total, count = 0.0, 0
    for start in range(0, len(indices), batch_size):
        part = indices[start:start + batch_size]
        ids, _ = collate(encoded, part, pad)
        lp = log_probs(model, ids)
        for row, i in enumerate(part):
            x, _, prompt_len = encoded[i]
            segment = lp[row, prompt_len - 1:len(x) - 1]
            total -= float(segment.sum())
            count += segment.numel()
    model.train()
    return total / max(count, 1)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument('--steps', type=int, default=3000)
    parser.add_argument('--max-seconds', type=float, default=6 * 3600)
    parser.add_argument('--batch', type=int, default=8)
    parser.add_argument('--lr', type=float, default=3e-3)
    parser.add_argument('--warmup', type=int, default=30)
    parser.add_argument('--prompt-weight', type=float, default=0.2, help='loss weight of prompt tokens (targets weigh 1)')
    parser.add_argument('--differ-weight', type=float, default=1.0,
                        help="loss weight of target tokens that differ from the first neighbor's answer (the rest weigh 1)")
    parser.add_argument('--n-layer', type=int, default=4)
    parser.add_argument('--n-embd', type=int, default=128)
    parser.add_argument('--n-head', type=int, default=4)
    parser.add_argument('--n-positions', type=int, default=2048)
    parser.add_argument('--threads', type=int, default=2)
    parser.add_argument('--seed', type=int, default=1234)
    parser.add_argument('--eval-every', type=int, default=100)
    parser.add_argument('--checkpoint-every', type=int, default=50)
    parser.add_argument('--resume', action='store_true', help='continue from models/data/checkpoint.pt')
    parser.add_argument('--init', default=None, help='start from these weights (a model.onnx written by this script, or a state dict) instead of random ones')
    parser.add_argument('--export-only', action='store_true',
                        help='write the model folder from models/data/checkpoint.pt as it stands, without training')
    parser.add_argument('--stop-step', type=int, default=None,
                        help='stop after this step, the schedule still planned for --steps (replays a run the wall-clock guard ended)')
    parser.add_argument('--out', default=OUT)
    args = parser.parse_args()

    torch.set_num_threads(args.threads)
    torch.manual_seed(args.seed)
    rng = random.Random(args.seed)
    os.makedirs(os.path.join(args.out, 'onnx'), exist_ok=True)

    tokenizer_json = read_json(os.path.join(DATA, 'tokenizer.json'))
    specials = specials_of(tokenizer_json)
    eos, pad = specials['<|endoftext|>'], specials['<|pad|>']
    vocab = max(tokenizer_json['model']['vocab'].values()) + 1
    with open(os.path.join(DATA, 'examples.jsonl'), 'rb') as f:
        raw = f.read()
    examples = [json.loads(line) for line in raw.decode('utf-8').splitlines()]
    train = [e for e in examples if e['split'] == 'train']
    heldout = [e for e in examples if e['split'] == 'heldout']
    train_tasks = {e['task'] for e in train}
    heldout_tasks = sorted({e['task'] for e in heldout})
    # The split is made by task in export-examples.ts; a task on both sides would be a leak.
    assert not train_tasks & set(heldout_tasks), 'a task is on both sides of the split'
    manifest = read_json(os.path.join(DATA, 'manifest.json'))
    assert manifest['examples']['sha256'] == hashlib.sha256(raw).hexdigest(), 'examples.jsonl changed after its manifest'
    manifest['tokenizer'] = {'file': 'tokenizer.json', 'vocab': vocab,
                             'sha256': hashlib.sha256(open(os.path.join(DATA, 'tokenizer.json'), 'rb').read()).hexdigest()}
    print(f'train {len(train)} renderings ({len(train_tasks)} tasks), held out {len(heldout)} transitions '
          f'({len(heldout_tasks)} tasks), vocabulary {vocab}', flush=True)

    neighbor = (specials['<|R|>'], {i for name, i in specials.items() if name not in ('<|endoftext|>', '<|pad|>')})
    enc_train = [sequence(e, args.n_positions, eos, args.prompt_weight, differ_weight=args.differ_weight, neighbor=neighbor)
                 for e in train]
    enc_held = [sequence(e, args.n_positions, eos, args.prompt_weight) for e in heldout]
    eval_subset = random.Random(args.seed + 1).sample(range(len(enc_held)), min(64, len(enc_held)))

    # A position followed by a field marker proposes EOS when copied: a recorded answer ends there.
    field_markers = [i for name, i in specials.items() if name not in ('<|endoftext|>', '<|pad|>', '<|cut|>')]
    model = TinyGpt(args.n_layer, args.n_embd, args.n_head, args.n_positions, vocab, pointer=True,
                    eos=eos, copy_eos=field_markers)
    if args.init is not None:
        # Warm start from another run's weights (parameters of the same name and shape).
        own = model.state_dict()
        # A model.onnx (the shipped folder's) or a state dict saved by an earlier run.
        source = state_from_onnx(args.init, model) if args.init.endswith('.onnx') else torch.load(args.init)
        loaded = {k: v for k, v in source.items() if k in own and own[k].shape == v.shape}
        model.load_state_dict(loaded, strict=False)
        print(f'initialised {len(loaded)} of {len(own)} tensors from {args.init}', flush=True)
    params = sum(p.numel() for p in model.parameters())
    print(f'{params} parameters', flush=True)
    decay = [p for n, p in model.named_parameters() if p.dim() >= 2]
    no_decay = [p for n, p in model.named_parameters() if p.dim() < 2]
    opt = torch.optim.AdamW([{'params': decay, 'weight_decay': 0.1}, {'params': no_decay, 'weight_decay': 0.0}],
                            lr=args.lr, betas=(0.9, 0.95))

    def lr_at(step):
        if step < args.warmup:
            return args.lr * (step + 1) / args.warmup
        progress = (step - args.warmup) / max(1, args.steps - args.warmup)
        return args.lr * (0.1 + 0.9 * 0.5 * (1 + math.cos(math.pi * min(1.0, progress))))

    checkpoint_path = os.path.join(DATA, 'checkpoint.pt')
    log = {'args': vars(args), 'parameters': params, 'train': [], 'heldout': []}
    plan = []
    step, tokens, seconds_before = 0, 0, 0.0
    if args.resume or args.export_only:
        state = torch.load(checkpoint_path, weights_only=False)
        model.load_state_dict(state['model'])
        opt.load_state_dict(state['optimizer'])
        rng.setstate(state['rng'])
        torch.set_rng_state(state['torch_rng'])
        step, tokens, seconds_before, plan, log = state['step'], state['tokens'], state['seconds'], state['plan'], state['log']
        log['args'] = vars(args)
        print(f'resumed at step {step}', flush=True)
    started = time.time() - seconds_before
    while step < args.steps and not args.export_only:
        if not plan:
            plan = batches(enc_train, args.batch, rng)
        indices = plan.pop()
        ids, weights = collate(enc_train, indices, pad)
        for group in opt.param_groups:
            group['lr'] = lr_at(step)
        lp = log_probs(model, ids)
        w = weights[:, 1:]
        loss = -(lp * w).sum() / w.sum()
        opt.zero_grad(set_to_none=True)
        loss.backward()
        torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
        opt.step()
        tokens += int((weights > 0).sum())
        step += 1
        elapsed = time.time() - started
        if step % 10 == 0:
            log['train'].append({'step': step, 'loss': round(loss.item(), 4), 'seconds': round(elapsed, 1)})
        if step % args.eval_every == 0 or step == args.steps:
            held = target_loss(model, enc_held, eval_subset, pad)
            log['heldout'].append({'step': step, 'loss': round(held, 4), 'seconds': round(elapsed, 1)})
            print(f'step {step} loss {loss.item():.3f} held-out target nll(64) {held:.3f} '
                  f'{tokens / elapsed:.0f} tok/s {elapsed:.0f}s', flush=True)
        if step % args.checkpoint_every == 0:
            torch.save({'model': model.state_dict(), 'optimizer': opt.state_dict(), 'rng': rng.getstate(),
                        'torch_rng': torch.get_rng_state(), 'step': step, 'tokens': tokens, 'seconds': elapsed,
                        'plan': plan, 'log': log}, checkpoint_path + '.tmp')
            os.replace(checkpoint_path + '.tmp', checkpoint_path)
        if args.stop_step is not None and step >= args.stop_step:
            print(f'stopping at step {step} (--stop-step)', flush=True)
            break
        if elapsed > args.max_seconds:
            print(f'stopping at step {step}: {elapsed:.0f}s wall clock budget reached', flush=True)
            break
    log['stepsRun'] = step
    log['trainSeconds'] = round(time.time() - started, 1)
    log['tokensSeen'] = tokens
    full = target_loss(model, enc_held, list(range(len(enc_held))), pad)
    log['finalHeldOutLoss'] = {'natsPerToken': round(full, 4), 'transitions': len(enc_held)}
    print(f'final held-out target loss {full:.4f} nats/token', flush=True)
    if not args.export_only:
        torch.save(model.state_dict(), os.path.join(DATA, 'model.pt'))

    with open(os.path.join(args.out, 'training-log.json'), 'w', encoding='utf-8') as f:
        json.dump(log, f, indent=1)
    with open(os.path.join(args.out, 'data-manifest.json'), 'w', encoding='utf-8') as f:
        json.dump(manifest, f, indent=1)
    # The split file is written by export-examples.ts (which made the split); shipped as is.
    shutil.copyfile(os.path.join(DATA, 'split.json'), os.path.join(args.out, 'split.json'))
    shutil.copyfile(os.path.join(DATA, 'tokenizer.json'), os.path.join(args.out, 'tokenizer.json'))
    export_onnx(model, args.out, args.n_layer, args.n_embd, args.n_head)
    write_config(args, vocab, eos, pad, model.cache_layers())
    assert field_markers, 'the tokenizer has no prompt markers'
    write_greedy_reference(model, heldout, args, eos, set(specials.values()) - {eos})


def write_config(args, vocab, eos, pad, cache_layers):
    config = {
        # GPT-2's field names give the cache layout packages/inference and transformers.js feed:
        # n_layer counts cache entries (the blocks and the copy head), [batch, n_head, length, n_embd / n_head].
        'model_type': 'gpt2',
        'vocab_size': vocab,
        'n_embd': args.n_embd,
        'n_head': args.n_head,
        'n_layer': cache_layers,
        'n_positions': args.n_positions,
        'n_ctx': args.n_positions,
        'bos_token_id': eos,
        'eos_token_id': eos,
        'pad_token_id': pad,
        'use_cache': True,
        'transformers.js_config': {'dtype': 'fp32'},
        'terrarium': {'promptFormatVersion': 3, 'blocks': args.n_layer, 'positions': 'rotary', 'copyHead': True},
    }
    with open(os.path.join(args.out, 'config.json'), 'w', encoding='utf-8') as f:
        json.dump(config, f, indent=1)
    with open(os.path.join(args.out, 'tokenizer_config.json'), 'w', encoding='utf-8') as f:
        json.dump({'tokenizer_class': 'PreTrainedTokenizerFast', 'bos_token': '<|endoftext|>', 'eos_token': '<|endoftext|>',
                   'pad_token': '<|pad|>', 'model_max_length': args.n_positions, 'add_bos_token': False,
                   'clean_up_tokenization_spaces': False}, f, indent=1)


def write_greedy_reference(model, heldout, args, eos, banned):
    example = next(e for e in heldout if e['source'] == REFERENCE_SOURCE)
    out = greedy(model, example['prompt'], REFERENCE_TOKENS, args.n_positions, eos, banned)
    reference = {
        'source': example['source'], 'trajectory': example['trajectory'], 'step': example['step'],
        'maxTokens': REFERENCE_TOKENS, 'promptIds': example['prompt'], 'outputIds': out,
    }
    with open(os.path.join(args.out, 'greedy-reference.json'), 'w', encoding='utf-8') as f:
        json.dump(reference, f, indent=1)
    print('greedy reference:', out[:40], flush=True)


if __name__ == '__main__':
    main()
