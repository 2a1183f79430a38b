#!/usr/bin/python3
"""Trains the bundled world model's tokenizer: a byte-level BPE (GPT-2's pre-tokenizer, so any text
encodes) learned from the training side's actions and observations only (data/corpus.jsonl, written by
`npx tsx models/export-examples.ts --corpus`), with the special tokens of data/specials.json (EOS,
padding and the prompt's markers, defined once in packages/inference/src/prompt.ts) at ids 0, 1, 2…

Writes data/tokenizer.json; train.py copies it into the model folder, where packages/inference reads
it with @huggingface/tokenizers. Also writes tokenizer-check.json into the model folder: the ids this
library gives a few texts (multi-byte characters, markers, numbers), which the JavaScript tokenizer
must reproduce (model-folder-tokenizer.test.ts).
"""
import argparse
import json
import os

from tokenizers import Tokenizer, decoders, models, pre_tokenizers, trainers

HERE = os.path.dirname(os.path.abspath(__file__))

CHECK_TEXTS = [
    '{"user_id": "isabella_johansson_2152", "balance": 1127.69, "items": []}',
    'Zoé 日本 café 😀 — naïve',
    '<|A|>{"name":"get_order_details","arguments":{"order_id":"#W7181492"}}<|O|>',
    'Error: Non-delivered order cannot be returned\n  at line 12\r\n\ttab',
    '   leading spaces and 0042 007 3.14159 -17',
]


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument('--vocab', type=int, default=2048)
    parser.add_argument('--data', default=os.path.join(HERE, 'data'))
    parser.add_argument('--out', default=os.path.join(HERE, 'terrarium-wm-tiny'))
    args = parser.parse_args()
    with open(os.path.join(args.data, 'specials.json'), encoding='utf-8') as f:
        specials = json.load(f)
    with open(os.path.join(args.data, 'corpus.jsonl'), encoding='utf-8') as f:
        texts = [json.loads(line) for line in f if line.strip()]
    tokenizer = Tokenizer(models.BPE())
    tokenizer.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False, use_regex=True)
    tokenizer.decoder = decoders.ByteLevel()
    trainer = trainers.BpeTrainer(vocab_size=args.vocab, special_tokens=specials,
                                  initial_alphabet=pre_tokenizers.ByteLevel.alphabet(), show_progress=False)
    tokenizer.train_from_iterator(texts, trainer)
    for i, token in enumerate(specials):
        assert tokenizer.token_to_id(token) == i, f'{token} is not id {i}'
    tokenizer.save(os.path.join(args.data, 'tokenizer.json'))
    os.makedirs(args.out, exist_ok=True)
    check = [{'text': text, 'ids': tokenizer.encode(text).ids} for text in CHECK_TEXTS]
    with open(os.path.join(args.out, 'tokenizer-check.json'), 'w', encoding='utf-8') as f:
        json.dump(check, f, indent=1, ensure_ascii=False)
    print(f'tokenizer: {tokenizer.get_vocab_size()} ids from {len(texts)} texts', flush=True)


if __name__ == '__main__':
    main()
