//! Where the helper threads of a launch may run. A launch on N threads runs on the launching
//! thread (a queue's worker) and N − 1 helpers of a persistent pool ([`super::scheduler`]),
//! which sleep between launches. Woken by a busy launching thread, a helper is often queued on
//! that thread's CPU while another is idle — Linux's wake-up placement prefers the waker's CPU
//! when the others do not look idle at that instant (an application thread polling for the
//! event, a virtual CPU the hypervisor has descheduled), and the load balancer moves it only
//! milliseconds later. Until then the two share one CPU: measured on a 2-CPU VM, half of the
//! launches of a 6–10 ms kernel ran at one thread's speed (a 7 ms kernel took 11 ms).
//!
//! So before it wakes the helpers, a launch restricts them to the CPUs its own thread may use,
//! minus the one it runs on now ([`keep_helpers_off_this_cpu`]): the helpers land elsewhere
//! whatever the wake-up heuristics think, and the launching thread keeps its CPU. Nothing is
//! pinned to one CPU (with more than two, the scheduler still spreads the helpers over the
//! rest), a launching thread allowed on a single CPU changes nothing, and on hosts without
//! `sched_setaffinity` this is a no-op. A failed call is ignored (placement is only speed).

/// A host thread's kernel id (what `sched_setaffinity` takes).
#[cfg(target_os = "linux")]
pub type Tid = libc::pid_t;
#[cfg(not(target_os = "linux"))]
pub type Tid = i32;

/// The calling thread's id, recorded by each helper when it starts.
pub fn this_thread() -> Tid {
    #[cfg(target_os = "linux")]
    // SAFETY: gettid has no preconditions and cannot fail.
    return unsafe { libc::gettid() };
    #[cfg(not(target_os = "linux"))]
    return 0;
}

/// Restricts the threads `helpers` to the calling thread's allowed CPUs minus the one it runs
/// on; does nothing when that would leave none. Returns whether the helpers were restricted.
pub fn keep_helpers_off_this_cpu(helpers: &[Tid]) -> bool {
    #[cfg(target_os = "linux")]
    {
        if helpers.is_empty() {
            return false;
        }
        // SAFETY: `sched_getcpu` has no preconditions; `cpu_set_t` is plain data for which all
        // zeros is the empty set; `sched_getaffinity`/`sched_setaffinity` read/write exactly
        // `size_of::<cpu_set_t>()` bytes of `set`, which lives for the calls; the CPU_* helpers
        // index inside the set (`cpu` < CPU_SETSIZE: it is a CPU number the kernel returned and
        // the set holds every CPU the kernel reports).
        unsafe {
            let cpu = libc::sched_getcpu();
            let mut set: libc::cpu_set_t = std::mem::zeroed();
            let size = std::mem::size_of::<libc::cpu_set_t>();
            if cpu < 0 || cpu as usize >= libc::CPU_SETSIZE as usize || libc::sched_getaffinity(0, size, &mut set) != 0
            {
                return false;
            }
            libc::CPU_CLR(cpu as usize, &mut set);
            if libc::CPU_COUNT(&set) == 0 {
                return false;
            }
            let mut all = true;
            for &t in helpers {
                all &= libc::sched_setaffinity(t, size, &set) == 0;
            }
            all
        }
    }
    #[cfg(not(target_os = "linux"))]
    {
        let _ = helpers;
        false
    }
}

#[cfg(all(test, target_os = "linux"))]
mod tests {
    use super::*;

    /// The CPUs thread `t` may run on.
    fn allowed(t: Tid) -> Vec<usize> {
        // SAFETY: as in `keep_helpers_off_this_cpu`.
        unsafe {
            let mut set: libc::cpu_set_t = std::mem::zeroed();
            assert_eq!(libc::sched_getaffinity(t, std::mem::size_of::<libc::cpu_set_t>(), &mut set), 0);
            (0..libc::CPU_SETSIZE as usize).filter(|&c| libc::CPU_ISSET(c, &set)).collect()
        }
    }

    #[test]
    fn a_helper_is_kept_off_the_launching_threads_cpu() {
        let (tx, rx) = std::sync::mpsc::channel();
        let (done_tx, done_rx) = std::sync::mpsc::channel::<()>();
        let helper = std::thread::spawn(move || {
            tx.send(this_thread()).unwrap();
            done_rx.recv().unwrap();
        });
        let tid = rx.recv().unwrap();
        // The launching thread's allowed set (a thread of its own: the same as this one's).
        let me = allowed(0);
        let launcher = std::thread::spawn(move || {
            let restricted = keep_helpers_off_this_cpu(&[tid]);
            // SAFETY: no preconditions.
            let cpu = unsafe { libc::sched_getcpu() };
            (restricted, cpu, me)
        });
        let (restricted, cpu, me) = launcher.join().unwrap();
        let now = allowed(tid);
        if me.len() >= 2 {
            // The launcher may have moved after the call; the helper's set is the launcher's
            // minus one CPU it ran on, so it has exactly one CPU fewer and only allowed ones.
            assert!(restricted);
            assert_eq!(now.len(), me.len() - 1, "helper allowed on {now:?}, launcher on {me:?} (at {cpu})");
            assert!(now.iter().all(|c| me.contains(c)));
        } else {
            assert!(!restricted);
            assert_eq!(now, me);
        }
        done_tx.send(()).unwrap();
        helper.join().unwrap();
    }

    #[test]
    fn nothing_to_restrict() {
        assert!(!keep_helpers_off_this_cpu(&[]));
    }
}
