// A Scopa Arena bot in JavaScript: the program the arena starts for each seat it plays
// (bot.toml's command). It serves the arena's gRPC protocol (protos/scopa/arena/v1/bot.proto)
// with @grpc/grpc-js: Describe, then one Play stream per game in which it answers each turn
// request with the index of the move it chooses. All the strategy is in choose() below.
//
//   npm install              # once: the packages of package.json, into node_modules/
//   arena bot check .        # the protocol's compliance checks
//   arena match . random     # a match against the random bot
//   npm test                 # the tests in test/
//   arena bot submit .       # upload it to the site (after `arena login`)
'use strict';

const fs = require('fs');
const path = require('path');

const PROTOCOL_VERSION = 1;
const SETTEBELLO = 6; // cards are numbers: suit * 10 + rank - 1, so 7 of coins (7d) is 6

// The card's rank (1 to 10: ace to 7, then Fante, Cavallo, Re) and suit (0 coins/denari,
// 1 cups/coppe, 2 batons/bastoni, 3 swords/spade).
const rank = (card) => (card % 10) + 1;
const suit = (card) => Math.floor(card / 10);

// How good a capture is: compared item by item, the first difference wins.
function worth(move, table) {
  const taken = [move.card, ...move.capture];
  return [
    move.capture.length === table.length ? 1 : 0, // a scopa: the table swept clean
    taken.includes(SETTEBELLO) ? 1 : 0,
    taken.filter((card) => rank(card) === 7).length, // sevens win the primiera
    taken.filter((card) => suit(card) === 0).length, // coins
    taken.length,
  ];
}

function better(a, b) {
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return a[i] > b[i];
  return false;
}

// Returns the index in legalMoves (never empty) of the move to play.
//
// observation is what this seat may see now, and nothing more: observation.hand (its cards),
// .table, .history (every {seat, move} of this deal so far), .captured (by side, {cards}),
// .scope and .totals (by side), .hand_sizes, .stock_size, .seat, .to_move, .dealer.
// A move is {card, capture}: the card played from the hand and the table cards it takes
// (capture is empty when the card is laid on the table).
function choose(observation, legalMoves) {
  let best = -1;
  let bestWorth = null;
  legalMoves.forEach((move, index) => {
    if (!move.capture.length) return;
    const value = worth(move, observation.table);
    if (best < 0 || better(value, bestWorth)) [best, bestWorth] = [index, value];
  });
  if (best >= 0) return best;
  // Nothing to take: keep the settebello, sevens and coins; lay down a plain card, the
  // highest (figures count least in the primiera).
  const plainness = (move) => [move.card !== SETTEBELLO ? 1 : 0, rank(move.card) !== 7 ? 1 : 0,
    suit(move.card) !== 0 ? 1 : 0, rank(move.card)];
  legalMoves.forEach((move, index) => {
    if (best < 0 || better(plainness(move), plainness(legalMoves[best]))) best = index;
  });
  return best;
}

// bot.toml is the one place for the name, version and variants: Describe reads them there.
function manifest() {
  const text = fs.readFileSync(path.join(__dirname, 'bot.toml'), 'utf8');
  const field = (key) => (new RegExp(`^${key}\\s*=\\s*"([^"]*)"`, 'm').exec(text) || [])[1] || '';
  const list = (/^variants\s*=\s*\[([^\]]*)\]/m.exec(text) || [])[1] || '"*"';
  return { name: field('name'), version: field('version'), author: field('author'),
           variants: [...list.matchAll(/"([^"]*)"/g)].map((m) => m[1]) };
}

// The protocol's .proto files: the arena's ($SCOPA_PROTO_PATH, set for every bot it starts),
// else the copy beside this file.
function protoRoot() {
  for (const dir of [process.env.SCOPA_PROTO_PATH, path.join(__dirname, 'protos')]) {
    if (dir && fs.existsSync(path.join(dir, 'scopa', 'arena', 'v1', 'bot.proto'))) return dir;
  }
  throw new Error('bot.proto not found: set SCOPA_PROTO_PATH');
}

function main() {
  const grpc = require('@grpc/grpc-js');
  const protoLoader = require('@grpc/proto-loader');
  const { HealthImplementation } = require('grpc-health-check');
  const info = manifest();
  const log = (...parts) => process.stderr.write(`${info.name}: ${parts.join(' ')}\n`);
  const definition = protoLoader.loadSync('scopa/arena/v1/bot.proto', {
    includeDirs: [protoRoot()],
    keepCase: true,
    longs: String, // request ids are 64-bit: echo them back exactly
    enums: String,
    defaults: true,
    oneofs: true,
  });
  const proto = grpc.loadPackageDefinition(definition).scopa.arena.v1;

  const service = {
    Describe(call, callback) {
      callback(null, { ...info, protocol_version: PROTOCOL_VERSION, language: 'javascript' });
    },
    Play(call) {
      call.on('data', (message) => {
        // Events (game_start, deal_start, move_played, deal_end, game_end) need no answer; a
        // bot that keeps memory reads them, and each turn request's moves_before (the moves
        // made since this seat's last turn), in order.
        if (message.kind !== 'turn_request') return;
        const request = message.turn_request;
        let index = 0;
        try {
          index = choose(request.observation, request.legal_moves);
        } catch (error) {
          log('choose failed, playing the first legal move:', error.stack);
        }
        call.write({ request_id: request.request_id, move_index: index });
      });
      call.on('end', () => call.end());
      call.on('error', (error) => log('stream error:', error.message));
    },
  };

  const server = new grpc.Server();
  server.addService(proto.Bot.service, service);
  new HealthImplementation({ '': 'SERVING', 'scopa.arena.v1.Bot': 'SERVING' }).addToServer(server);
  const address = process.env.SCOPA_BOT_ADDRESS || '127.0.0.1:50051';
  server.bindAsync(address, grpc.ServerCredentials.createInsecure(), (error, port) => {
    if (error) {
      log(`cannot listen on ${address}: ${error.message}`);
      process.exit(1);
    }
    // The arena waits for this line before it asks anything.
    process.stdout.write(`LISTENING ${address.replace(/:0$/, `:${port}`)}\n`);
  });
  const stop = () => server.tryShutdown(() => process.exit(0));
  process.on('SIGTERM', stop);
  process.on('SIGINT', stop);
}

module.exports = { choose, rank, suit };
if (require.main === module) main();
