import { describe, expect, it } from 'vitest';
import { displayId, taskHeadline } from './trajectory-name';

describe('trajectory names', () => {
  it('drops the folders and extension of a file-like id, keeps other ids whole', () => {
    expect(
      displayId(
        'trajectories/demonstrations/replay__marshmallow-code__marshmallow-1867/marshmallow-code__marshmallow-1867.traj',
      ),
    ).toBe('marshmallow-code__marshmallow-1867');
    expect(displayId('task-0-trial-0')).toBe('task-0-trial-0');
    expect(displayId('ic_bash_multiturn_gpt-4_10_turns_fs_1.json#0')).toBe(
      'ic_bash_multiturn_gpt-4_10_turns_fs_1.json#0',
    );
  });

  it('shows the first line of a task that is not a template heading', () => {
    // The tau2 retail task template (from the real file): headings, then the domain name alone.
    expect(
      taskHeadline(
        'Domain:\nretail\n\nReason for call:\nYou want to know how much balance does your gift card have.\n\nKnown info:\nYou are Isabella Lopez.',
      ),
    ).toBe('You want to know how much balance does your gift card have.');
    expect(
      taskHeadline(
        "We're currently solving the following issue within our repository. Here's the issue text:\nISSUE:\nTypeError in pixel_array\n",
      ),
    ).toBe('TypeError in pixel_array');
    expect(taskHeadline('Calculate a list of duplicate md5 sum hashes')).toBe(
      'Calculate a list of duplicate md5 sum hashes',
    );
    expect(taskHeadline('Summary:')).toBe('Summary:');
    expect(taskHeadline(null)).toBeNull();
  });
});
