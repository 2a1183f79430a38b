import { promisify } from 'node:util';
import { inflateRaw } from 'node:zlib';
import { Step, StepMarker } from '@terrarium/schema';
import { z } from 'zod';
import type { Row } from './executor';
import { intColumn, jsonColumn } from './row';

const inflateAsync = promisify(inflateRaw);

/**
 * Reading the pages steps are stored in (migration 015): a page's steps from its deflated JSON
 * (`body`), or from `body_json` for pages the migration made from the old steps table.
 */
export async function stepsOfPage(row: Row): Promise<Step[]> {
  const body = row['body'];
  const steps: unknown =
    body instanceof Uint8Array
      ? JSON.parse((await inflateAsync(body)).toString('utf8'))
      : jsonColumn(row, 'body_json');
  return Step.array().parse(steps);
}

const StoredMarker = z.tuple([
  StepMarker.shape.actor,
  StepMarker.shape.actionType,
  StepMarker.shape.label,
  StepMarker.shape.observationKind,
  StepMarker.shape.reward,
]);

/** A page's markers, numbered from its first step. */
export function markersOfPage(row: Row): StepMarker[] {
  const first = intColumn(row, 'first_idx');
  return StoredMarker.array()
    .parse(jsonColumn(row, 'markers'))
    .map(([actor, actionType, label, observationKind, reward], at) => ({
      index: first + at,
      actor,
      actionType,
      label,
      observationKind,
      reward,
    }));
}
