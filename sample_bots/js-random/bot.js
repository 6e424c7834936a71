// The JavaScript sample bot: plays a uniformly random legal move over the scopa.arena.v1
// protocol. It loads the .proto files at run time (no generated code), serves the Bot service
// and the standard health service, binds $SCOPA_BOT_ADDRESS (or --address, default
// 127.0.0.1:50051) and prints "LISTENING <address>" on stdout once it serves.
'use strict';

const fs = require('fs');
const path = require('path');
const grpc = require('@grpc/grpc-js');
const protoLoader = require('@grpc/proto-loader');
const { HealthImplementation } = require('grpc-health-check');

const NAME = 'js-random';
const VERSION = '1.0.0';
const PROTOCOL_VERSION = 1;

function log(...parts) {
  process.stderr.write(`${NAME}: ${parts.join(' ')}\n`);
}

// The protos/ folder: $SCOPA_PROTO_PATH, a copy beside the bot, or the arena's checkout.
function protoRoot() {
  const candidates = [
    process.env.SCOPA_PROTO_PATH,
    path.join(__dirname, 'protos'),
    path.join(__dirname, '..', '..', 'protos'),
  ].filter(Boolean);
  for (const dir of candidates) {
    if (fs.existsSync(path.join(dir, 'scopa', 'arena', 'v1', 'bot.proto'))) return dir;
  }
  throw new Error(`bot.proto not found in ${candidates.join(', ')}`);
}

// A small seeded generator (mulberry32) so a match with SCOPA_BOT_SEED can be replayed.
function makeRandom(seed) {
  if (seed === undefined || seed === '') return Math.random;
  let a = Number(seed) >>> 0;
  return function () {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

function argValue(name) {
  const index = process.argv.indexOf(name);
  return index >= 0 ? process.argv[index + 1] : undefined;
}

function main() {
  const definition = protoLoader.loadSync('scopa/arena/v1/bot.proto', {
    includeDirs: [protoRoot()],
    keepCase: true,
    longs: String, // request ids are uint64: echo them back exactly
    enums: String,
    defaults: true,
    oneofs: true,
  });
  const proto = grpc.loadPackageDefinition(definition).scopa.arena.v1;
  const random = makeRandom(argValue('--seed') ?? process.env.SCOPA_BOT_SEED);

  const service = {
    Describe(call, callback) {
      callback(null, {
        name: NAME,
        version: VERSION,
        author: 'Scopa Arena',
        variants: ['*'],
        protocol_version: PROTOCOL_VERSION,
        language: 'javascript',
      });
    },
    Play(call) {
      call.on('data', (message) => {
        // Events (game_start, deal_start, move_played, deal_end, game_end) need no answer.
        // A turn request also carries the moves made since this seat's last message
        // (request.moves_before, in order): a bot that keeps memory reads them first. This
        // one plays at random and needs none.
        if (message.kind !== 'turn_request') return;
        const request = message.turn_request;
        const count = request.legal_moves.length;
        const index = count > 0 ? Math.floor(random() * count) : 0;
        call.write({ request_id: request.request_id, move_index: index });
      });
      call.on('end', () => call.end());
      call.on('error', (error) => log('stream error:', error.message));
    },
  };

  const server = new grpc.Server();
  server.addService(proto.Bot.service, service);
  const health = new HealthImplementation({ '': 'SERVING', 'scopa.arena.v1.Bot': 'SERVING' });
  health.addToServer(server);

  const address = argValue('--address') ?? process.env.SCOPA_BOT_ADDRESS ?? '127.0.0.1:50051';
  server.bindAsync(address, grpc.ServerCredentials.createInsecure(), (error, port) => {
    if (error) {
      log(`cannot listen on ${address}: ${error.message}`);
      process.exit(1);
    }
    const bound = address.startsWith('unix:') ? address : address.replace(/:0$/, `:${port}`);
    process.stdout.write(`LISTENING ${bound}\n`);
  });

  const stop = () => server.tryShutdown(() => process.exit(0));
  process.on('SIGTERM', stop);
  process.on('SIGINT', stop);
}

main();
