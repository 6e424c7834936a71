// The bot's tests: `npm test` (node --test) in the bot's folder. The first ones call choose()
// directly; the last plays a real match against the random bot through the arena (`arena` on
// the PATH, or the command in $ARENA), the way the site validates an upload.
'use strict';

const assert = require('node:assert');
const { spawnSync } = require('node:child_process');
const path = require('node:path');
const test = require('node:test');
const { choose } = require('../bot.js');

const card = (name) => {
  const [, rank, suit] = /^(10|[1-9])([dcbs])$/.exec(name);
  return 'dcbs'.indexOf(suit) * 10 + Number(rank) - 1;
};
const move = (played, ...taken) => ({ card: card(played), capture: taken.map(card) });
const observation = (table) => ({ hand: [], table: table.map(card), history: [] });

test('choose takes the settebello rather than more cards', () => {
  const legal = [move('5c'), move('7s', '7d'), move('9b', '4b', '5s')];
  assert.strictEqual(choose(observation(['7d', '4b', '5s']), legal), 1);
});

test('choose sweeps the table when it can', () => {
  const legal = [move('3c', '3b'), move('8s', '3b', '5s')];
  assert.strictEqual(choose(observation(['3b', '5s']), legal), 1);
});

test('with nothing to take, choose keeps its sevens and coins', () => {
  const legal = [move('7c'), move('2d'), move('4s'), move('9b')];
  assert.strictEqual(choose(observation(['1c']), legal), 3);
});

test('it plays a match against random without a fault', () => {
  const folder = path.join(__dirname, '..');
  const [command, ...prefix] = (process.env.ARENA || 'arena').split(' ');
  const args = [...prefix, 'match', folder, 'random', '--games', '2', '--seed', '1', '--json'];
  // In bubblewrap, as on the site, when the machine has it.
  if (spawnSync('bwrap', ['--version']).status !== 0) args.push('--unsafe-no-sandbox');
  const run = spawnSync(command, args, { encoding: 'utf8' });
  assert.strictEqual(run.status, 0, run.error ? String(run.error) : run.stderr);
  const report = JSON.parse(run.stdout);
  assert.strictEqual(report.games.length, 2);
  for (const game of report.games) {
    assert.deepStrictEqual(game.faults, []);
    assert.ok(!game.void, game.void);
  }
});
