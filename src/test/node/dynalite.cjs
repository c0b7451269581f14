// dynalite, as its cli.js starts it, but surviving a client that goes away mid-request: its HTTP handler rethrows a
// request's error (index.js: req.on('error', function (err) { throw err })), so an aborted request (ECONNRESET, seen
// when scripts/build/scale-test SIGKILLs an instance with DynamoDB writes in flight) ended the whole store, and every
// instance after it. Those are logged and served on; any other uncaught error still ends the process.
process.on('uncaughtException', (err) => {
  if (err && (err.code === 'ECONNRESET' || err.message === 'aborted')) {
    console.error(`dynalite: a client went away mid-request (${err.message}); serving on`);
    return;
  }
  console.error(err);
  process.exit(1);
});
require('./node_modules/dynalite/cli.js');
