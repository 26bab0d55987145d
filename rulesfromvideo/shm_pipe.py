"""Pickles whose arrays travel through shared memory: how a worker process hands its parent
megabytes a frame (the decoded frame, its ice masks) without pushing them through a pipe.

The writer pickles each item with protocol 5 and its buffers (numpy arrays) out of band:
the buffers go into one of ``n_slots`` slots of one shared-memory block, the rest of the
pickle (a few kB) through the pipe with the slot's number. The reader copies the buffers
out of the slot, so its arrays are its own and writable, and then acknowledges the slot
with one byte on the writer's standard input, which frees it. The writer waits while every
slot is taken: it runs at most ``n_slots`` items ahead, and memory stays flat.

Reading a 720p frame pickled through a pipe costs about as much as decoding it again
(`docs/benchmarks.md`, stop 29); a copy out of shared memory costs a tenth of a millisecond.
"""

from __future__ import annotations

import os
import pickle
from multiprocessing import shared_memory
from typing import Any, BinaryIO

_PAGE = 4096


class SlotWriter:
    """The worker's end: sends items in order.

    Args:
        out: the pipe to the parent (binary, buffered; flushed after every item).
        acks: the pipe from the parent carrying one byte per slot it has read.
        n_slots: how many items may be in flight at once.
    """

    def __init__(self, out: BinaryIO, acks: BinaryIO, n_slots: int = 3) -> None:
        self.out, self.acks, self.n_slots = out, acks, int(n_slots)
        self.shm: shared_memory.SharedMemory | None = None
        self.slot_bytes = 0  # 0: not sized yet; -1: no shared memory, the pipe alone
        self._next = 0
        self._in_flight = 0

    def send(self, item: Any) -> None:
        """Send one item: its buffers through a free slot (waiting for one), or the whole pickle
        through the pipe when they do not fit one (a larger frame than the first)."""
        buffers: list[pickle.PickleBuffer] = []
        meta = pickle.dumps(item, protocol=5, buffer_callback=buffers.append)
        views = [b.raw() for b in buffers]
        need = sum(v.nbytes for v in views)
        if need and not self.slot_bytes:  # the first item with buffers sizes the slots
            self._allocate(need)
        if not views or need > self.slot_bytes:
            pickle.dump(("inline", pickle.dumps(item, protocol=5)), self.out, protocol=5)
            self.out.flush()
            return
        if self._in_flight == self.n_slots:
            self._wait_for_ack()
        slot = self._next
        self._next = (self._next + 1) % self.n_slots
        offset = slot * self.slot_bytes
        sizes = []
        for v in views:
            self.shm.buf[offset : offset + v.nbytes] = v
            offset += v.nbytes
            sizes.append(v.nbytes)
        self._in_flight += 1
        pickle.dump(("slot", meta, self.shm.name, slot * self.slot_bytes, sizes), self.out, protocol=5)
        self.out.flush()

    def _allocate(self, need: int) -> None:
        # Sized on the first item (every frame of a clip is the same size), with room to spare;
        # fewer slots where /dev/shm is small (a container's 64 MB holds two of a 1080p frame's).
        # One slot still overlaps the two processes: the reader frees it as soon as it has copied.
        slot_bytes = -(-int(need * 1.25) // _PAGE) * _PAGE
        for n_slots in range(self.n_slots, 0, -1):
            shm = _reserved_block(slot_bytes * n_slots)
            if shm is not None:
                self.shm, self.slot_bytes, self.n_slots = shm, slot_bytes, n_slots
                return
        self.slot_bytes = -1  # no shared memory here: everything goes through the pipe

    def _wait_for_ack(self) -> None:
        if not self.acks.read(1):
            raise BrokenPipeError("the reader has gone")
        self._in_flight -= 1

    def close(self) -> None:
        """Wait until the reader has copied every slot still in flight (or has gone), then free
        the shared memory."""
        try:
            while self._in_flight:
                self._wait_for_ack()
        except (BrokenPipeError, OSError, ValueError):
            pass
        if self.shm is not None:
            self.shm.close()
            self.shm.unlink()
            self.shm = None


def _reserved_block(size: int) -> shared_memory.SharedMemory | None:
    """A new shared-memory block of ``size`` bytes with its pages reserved, or None where there is
    no room (or no shared memory at all)."""
    try:
        shm = shared_memory.SharedMemory(create=True, size=size)
    except OSError:
        return None
    fallocate = getattr(os, "posix_fallocate", None)  # Linux, where /dev/shm is a sized tmpfs
    try:
        # Reserve the pages now: a full /dev/shm would otherwise kill this process with SIGBUS at
        # the first write into a slot.
        if fallocate is not None:
            fallocate(shm._fd, 0, shm.size)  # noqa: SLF001
    except OSError:
        shm.close()
        shm.unlink()
        return None
    return shm


class SlotReader:
    """The parent's end: receives the items a `SlotWriter` sent, in order.

    Args:
        stream: the pipe from the worker.
        acks: the pipe to the worker's standard input, for the acknowledgements.
    """

    def __init__(self, stream: BinaryIO, acks: BinaryIO) -> None:
        self.stream, self.acks = stream, acks
        self._shm: shared_memory.SharedMemory | None = None

    def recv(self) -> Any:
        """The next item.

        Raises:
            EOFError: the worker closed the pipe.
        """
        msg = pickle.load(self.stream)  # our own child's messages: trusted
        if msg[0] == "inline":
            return pickle.loads(msg[1])
        _, meta, name, offset, sizes = msg
        if self._shm is None or self._shm.name != name:
            self._attach(name)
        buffers = []
        for n in sizes:
            buffers.append(bytearray(self._shm.buf[offset : offset + n]))  # a copy: the slot is reused
            offset += n
        try:
            self.acks.write(b"\x01")
            self.acks.flush()
        except (BrokenPipeError, OSError, ValueError):
            pass  # the worker has gone; its end of the stream says how
        return pickle.loads(meta, buffers=buffers)

    def _attach(self, name: str) -> None:
        self.close()
        self._shm = shared_memory.SharedMemory(name=name)
        # The worker owns the block and frees it; Python before 3.13 would also have this
        # process's resource tracker free it (and warn) at exit.
        try:
            from multiprocessing import resource_tracker

            resource_tracker.unregister(self._shm._name, "shared_memory")  # noqa: SLF001
        except Exception:
            pass

    def close(self) -> None:
        """Detach from the shared memory."""
        if self._shm is not None:
            self._shm.close()
            self._shm = None
