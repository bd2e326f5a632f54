//! The threads of a parallel loop: the calling thread and helpers that linger.
//!
//! A rayon worker that has run out of jobs parks after a few rounds of yielding, and waking a
//! parked thread takes tens of µs on a VM (an inter-processor interrupt through the
//! hypervisor). Back-to-back ops of 5-200 µs each then paid that wake on every op: a 64K f64
//! `pow` ran 1.52x faster at 2 threads than at 1 where PyTorch's OpenMP team, which spins
//! between parallel regions, ran 2.06x. So a helper here is a rayon job that, after its share
//! of one loop, spins for [`LINGER`] waiting for the calling thread's next loop before it
//! returns to rayon; the next loop hands it the job through one atomic.
//!
//! Each calling thread keeps its own helpers (a thread-local list), spawned into its rayon pool
//! with `rayon::spawn`. A helper's state machine (one `AtomicU8`):
//!
//! * `LINGERING`: spinning, no job. The caller posts a job: `LINGERING -> POSTED`.
//! * `POSTED`: the helper takes it (`POSTED -> RUNNING`), or the caller, having finished every
//!   piece itself, takes it back (`POSTED -> LINGERING`) without waiting for a helper that has
//!   not started.
//! * `RUNNING`: the helper runs the job; the caller waits for it to leave `RUNNING`.
//! * `DONE`: the helper has finished and no longer touches the job; the caller sets it back to
//!   `LINGERING`.
//! * `GONE`: the helper timed out (`LINGERING | DONE -> GONE`) and returned to rayon; the caller
//!   spawns a new one in its place.
//!
//! The caller waits only for helpers that are running its job, and a running job finishes
//! without waiting for anything that has not started, so no wait can deadlock (a job that
//! calls an op on its own thread gets its own helpers, or runs alone when re-entered).
//! The job lives on the caller's stack; [`run_with_helpers`] returns, or unwinds, only after
//! every helper that took it has set `DONE` (the `Finish` guard), which is what makes handing
//! its address to another thread sound.

use std::any::Any;
use std::cell::RefCell;
use std::panic::{AssertUnwindSafe, catch_unwind, resume_unwind};
use std::sync::atomic::{AtomicPtr, AtomicU8, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

/// How long a helper spins for the next loop after finishing one. OpenMP runtimes spin for
/// 0.1-200 ms (`GOMP_SPINCOUNT`, `KMP_BLOCKTIME`); 200 µs covers the gap between two ops of a
/// loop of small ops while costing an idle core little.
const LINGER: Duration = Duration::from_micros(200);

/// Spins between two looks at the clock and at rayon's queues while lingering (a `pause` is
/// ~40-140 cycles).
const SPINS_PER_CLOCK_READ: u32 = 16;

/// After this long without work, a lingering helper yields its core between polls instead of
/// only pausing (so a busy machine gets the core back).
const SPIN_ONLY: Duration = Duration::from_micros(20);

const LINGERING: u8 = 0;
const POSTED: u8 = 1;
const RUNNING: u8 = 2;
const DONE: u8 = 3;
const GONE: u8 = 4;

/// One loop's work as the helpers see it: the function every thread runs (it takes pieces from
/// a shared counter until none are left) and the first panic of a helper.
struct Job<'a> {
    work: &'a (dyn Fn() + Sync),
    panic: Mutex<Option<Box<dyn Any + Send>>>,
}

/// A helper thread's mailbox (module docs).
struct Helper {
    state: AtomicU8,
    /// The posted job: valid while `state` is `POSTED` or `RUNNING` (its owner waits).
    job: AtomicPtr<Job<'static>>,
}

thread_local! {
    /// The calling thread's helpers, by slot.
    static TEAM: RefCell<Vec<Arc<Helper>>> = const { RefCell::new(Vec::new()) };
}

/// Runs `work` on the calling thread and on up to `helpers` other threads of the current rayon
/// pool at once, and returns when every call has returned. Each call must take its share of
/// the loop from state `work` shares (a counter), so any call may find nothing left. A panic
/// in any call is resumed on the caller after all calls have returned.
pub(crate) fn run_with_helpers(helpers: usize, work: &(dyn Fn() + Sync)) {
    let job = Job {
        work,
        panic: Mutex::new(None),
    };
    // Alone also where the thread's locals are being destroyed (an op in a thread-local's
    // destructor): `try_with` fails there.
    let alone = TEAM.try_with(|team| {
        // A job that calls an op on its own thread finds its team busy: it runs alone.
        let Ok(mut team) = team.try_borrow_mut() else {
            return true;
        };
        // The lifetime is erased for the helpers; `Finish` below waits for every helper that
        // takes the job before `job` goes out of scope.
        let job_ptr = (&job as *const Job<'_>).cast::<Job<'static>>().cast_mut();
        // Every helper the job is posted to, from the moment it is posted (so a panic while
        // posting the next one still waits for it).
        let mut posted = Finish(Vec::with_capacity(helpers));
        for slot in 0..helpers {
            if let Some(h) = team.get(slot) {
                h.job.store(job_ptr, Ordering::Relaxed);
                if h.state
                    .compare_exchange(LINGERING, POSTED, Ordering::Release, Ordering::Relaxed)
                    .is_ok()
                {
                    posted.0.push(Arc::clone(h));
                    continue;
                }
            }
            // No helper in this slot, or it has gone back to rayon: a new one, job posted.
            let h = Arc::new(Helper {
                state: AtomicU8::new(POSTED),
                job: AtomicPtr::new(job_ptr),
            });
            posted.0.push(Arc::clone(&h));
            let mine = Arc::clone(&h);
            rayon::spawn(move || linger(&mine));
            if slot < team.len() {
                team[slot] = h;
            } else {
                team.push(h);
            }
        }
        work();
        drop(posted);
        false
    });
    if alone.unwrap_or(true) {
        work();
    }
    if let Some(p) = job.panic.into_inner().unwrap_or_else(|p| p.into_inner()) {
        resume_unwind(p);
    }
}

/// Takes back the job from helpers that have not started it and waits for those running it;
/// on drop, so also when the caller's own share panics.
struct Finish(Vec<Arc<Helper>>);

impl Drop for Finish {
    fn drop(&mut self) {
        for h in &self.0 {
            if h.state
                .compare_exchange(POSTED, LINGERING, Ordering::Acquire, Ordering::Acquire)
                .is_ok()
            {
                continue;
            }
            let start = Instant::now();
            let mut spins = 0u32;
            // Acquire: the helper's writes (its outputs, a panic) happen before its `DONE`.
            while h.state.load(Ordering::Acquire) == RUNNING {
                pause(&mut spins, start);
            }
            let _ = h
                .state
                .compare_exchange(DONE, LINGERING, Ordering::Relaxed, Ordering::Relaxed);
        }
    }
}

/// A helper's life: run posted jobs until none comes for [`LINGER`], then return to rayon.
/// While it waits it also runs the pool's other pending jobs (`rayon::yield_now`).
fn linger(h: &Helper) {
    let mut idle_since = Instant::now();
    loop {
        match h.state.load(Ordering::Relaxed) {
            POSTED => {
                if h.state
                    .compare_exchange(POSTED, RUNNING, Ordering::Acquire, Ordering::Relaxed)
                    .is_ok()
                {
                    let job = h.job.load(Ordering::Relaxed);
                    // SAFETY: the caller stored `job` before its Release store of `POSTED`
                    // that this Acquire exchange read, and it does not let the job go out of
                    // scope while the state is `RUNNING` (`Finish`): the reference is valid
                    // until the `DONE` store below, after which it is not used.
                    let job = unsafe { &*job };
                    if let Err(p) = catch_unwind(AssertUnwindSafe(|| (job.work)())) {
                        let mut first = job.panic.lock().unwrap_or_else(|e| e.into_inner());
                        first.get_or_insert(p);
                    }
                    h.state.store(DONE, Ordering::Release);
                    idle_since = Instant::now();
                }
            }
            state @ (LINGERING | DONE) => {
                for _ in 0..SPINS_PER_CLOCK_READ {
                    if h.state.load(Ordering::Relaxed) == POSTED {
                        break;
                    }
                    core::hint::spin_loop();
                }
                if h.state.load(Ordering::Relaxed) == POSTED {
                    continue;
                }
                // Other work of this pool (a reduction's halves, a user's `join`) is run here
                // rather than left waiting for this thread to come back to rayon.
                if rayon::yield_now() == Some(rayon::Yield::Executed) {
                    continue;
                }
                let idle = idle_since.elapsed();
                if idle >= LINGER
                    && h.state
                        .compare_exchange(state, GONE, Ordering::Relaxed, Ordering::Relaxed)
                        .is_ok()
                {
                    return;
                }
                if idle >= SPIN_ONLY {
                    std::thread::yield_now();
                }
            }
            _ => unreachable!("a helper's state is RUNNING or GONE only in its own hands"),
        }
    }
}

/// One step of a wait that started at `since`: a spin hint, and a yield of the core once the
/// wait has lasted [`SPIN_ONLY`] (checked every [`SPINS_PER_CLOCK_READ`] steps).
#[inline]
fn pause(spins: &mut u32, since: Instant) {
    *spins = spins.wrapping_add(1);
    if spins.is_multiple_of(SPINS_PER_CLOCK_READ) && since.elapsed() >= SPIN_ONLY {
        std::thread::yield_now();
    } else {
        core::hint::spin_loop();
    }
}
