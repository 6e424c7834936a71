# A bot started by exec (not Python) that fails its start and blames the sandbox.
echo "bwrap: Can't mount proc on /newroot/proc: Operation not permitted" >&2
echo "prlimit: failed to set the NPROC resource limit" >&2
exit 1
