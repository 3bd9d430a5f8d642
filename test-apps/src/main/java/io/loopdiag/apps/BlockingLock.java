package io.loopdiag.apps;

import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Semaphore;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.Lock;
import java.util.concurrent.locks.ReentrantLock;
import java.util.concurrent.locks.ReentrantReadWriteLock;
import java.util.function.BooleanSupplier;

/**
 * {@code java.util.concurrent} synchronizers that another thread holds or releases a few
 * milliseconds later: a contended {@code ReentrantLock.lock}, {@code CountDownLatch.await},
 * {@code Semaphore.acquire}, {@code Condition.await} and a contended write lock.
 */
final class BlockingLock {
    static final String NAME = "blocking-lock";
    static final String DESCRIPTION = "contended locks, latch, semaphore and condition waits in a task";

    private BlockingLock() {
    }

    static int main(String[] args) throws Exception {
        Main.requireNoArguments(args);
        Blocking.run(NAME, BlockingLock::operations);
        return Main.done(NAME);
    }

    private static void operations() throws InterruptedException {
        reentrantLockLock();
        countDownLatchAwait();
        semaphoreAcquire();
        conditionAwait();
        writeLockLock();
    }

    private static void reentrantLockLock() {
        ReentrantLock lock = new ReentrantLock();
        heldByOtherThread(lock, lock::isLocked);
        lock.lock();
        lock.unlock();
    }

    private static void countDownLatchAwait() throws InterruptedException {
        CountDownLatch latch = new CountDownLatch(1);
        OtherThread.after(latch::countDown);
        latch.await();
    }

    private static void semaphoreAcquire() throws InterruptedException {
        Semaphore semaphore = new Semaphore(0);
        OtherThread.after(semaphore::release);
        semaphore.acquire();
    }

    private static void conditionAwait() throws InterruptedException {
        ReentrantLock lock = new ReentrantLock();
        Condition signalled = lock.newCondition();
        boolean[] wasSignalled = {false}; // guarded by lock
        OtherThread.after(() -> {
            lock.lock();
            try {
                wasSignalled[0] = true;
                signalled.signal();
            } finally {
                lock.unlock();
            }
        });
        lock.lock(); // uncontended: the other thread takes it only after its delay
        try {
            while (!wasSignalled[0]) {
                signalled.await();
            }
        } finally {
            lock.unlock();
        }
    }

    private static void writeLockLock() {
        ReentrantReadWriteLock readWrite = new ReentrantReadWriteLock();
        heldByOtherThread(readWrite.writeLock(), readWrite::isWriteLocked);
        readWrite.writeLock().lock();
        readWrite.writeLock().unlock();
    }

    /**
     * Has another thread take {@code lock} and release it after the delay; returns once it holds
     * it. Spins meanwhile (for the microseconds a thread takes to start): waiting for it would be a
     * blocking call of its own.
     */
    private static void heldByOtherThread(Lock lock, BooleanSupplier isHeld) {
        Thread waiter = Thread.currentThread();
        Thread.ofPlatform().name("other-thread").daemon(true).start(() -> {
            lock.lock();
            try {
                OtherThread.awaitWaiting(waiter, OtherThread::isBlocked);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            } finally {
                lock.unlock();
            }
        });
        while (!isHeld.getAsBoolean()) {
            Thread.onSpinWait();
        }
    }
}
