// SPDX-License-Identifier: GPL-2.0

//! KUnit suites declared from Rust.
//!
//! C header: [`include/kunit/test.h`](srctree/include/kunit/test.h).
//!
//! Test functions return [`TestResult`]; the [`check!`], [`check_eq!`] and [`check_ok!`]
//! macros fail the test case with the failing expression and its location, and
//! [`skip_unless!`] skips it. Failing by returning (rather than by aborting the test's thread,
//! as the kernel's KUnit `assert!` does) lets the case's transforms and registrations be
//! dropped before the next case runs. [`suite!`] declares a suite of such functions; it needs
//! KUnit built in (`CONFIG_KUNIT=y`, which the test module's Kconfig option depends on).

use crate::bindings;

/// Why a test case failed (where, and the check that did not hold), or why it was skipped.
pub struct Failure {
    /// Source file of the failed check.
    pub file: &'static str,
    /// Line of the failed check.
    pub line: u32,
    /// The check, as written, or the reason for skipping.
    pub what: &'static str,
    /// Whether the case was skipped (its subject is absent) rather than failed.
    pub skip: bool,
}

/// What a test case returns.
pub type TestResult = core::result::Result<(), Failure>;

/// One in how many entries of a test matrix runs in this build: every entry in a module;
/// built in (`=y`, where the suites run at boot), every third. The module build of the same
/// source runs the whole matrix in make test, on the same CPU (the `test-max` boot), and
/// callers draw an entry's random inputs before asking [`in_matrix`]: the entries a built-in
/// run keeps are the module run's own, so it repeats a part of that run rather than all of
/// it. What a built-in run adds is the suites passing at boot, built in.
pub(crate) const MATRIX_STEP: usize = if cfg!(MODULE) { 1 } else { BUILTIN_STEP };

/// [`MATRIX_STEP`] built in.
const BUILTIN_STEP: usize = 3;

/// Whether entry `i` of a test matrix runs in this build (see [`MATRIX_STEP`]).
pub(crate) fn in_matrix(i: usize) -> bool {
    cfg!(MODULE) || i % BUILTIN_STEP == 0
}

/// Records the outcome `result` of the test case `name` in the running test `test`: a skip
/// (status and comment, as `kunit_mark_skipped()`), or a failure, printed with where and why.
/// Returns whether the case failed.
///
/// # Safety
///
/// `test` must be the running test.
unsafe fn record(test: *mut bindings::kunit, name: &str, result: TestResult) -> bool {
    let (status, f) = match result {
        Ok(()) => return false,
        Err(f) if f.skip => (bindings::kunit_status_KUNIT_SKIPPED, f),
        Err(f) => {
            kernel::pr_err!(
                "    # {}: check failed at {}:{}: {}\n",
                name,
                f.file,
                f.line,
                f.what
            );
            (bindings::kunit_status_KUNIT_FAILURE, f)
        }
    };
    // SAFETY: `test` is the running test, valid for the duration of this call; KUnit reads
    // the comment and `status` after the case returns (`kunit_mark_skipped()`,
    // `kunit_set_failure()`).
    unsafe {
        if f.skip {
            let comment = &mut (*test).status_comment;
            let n = f.what.len().min(comment.len() - 1);
            for (d, s) in comment.iter_mut().zip(f.what.bytes().take(n)) {
                *d = s as core::ffi::c_char;
            }
            comment[n] = 0;
        }
        core::ptr::write_volatile(core::ptr::addr_of_mut!((*test).status), status);
    }
    !f.skip
}

/// Concludes the test case `name` run by `#[kunit_tests]`: records a skip or prints a failure
/// (see [`record`]), and returns `Err` for a failure, which the kernel's macro reports.
#[cfg(sm4rs_kunit_tests)]
pub fn conclude(name: &str, result: TestResult) -> core::result::Result<(), ()> {
    // SAFETY: FFI call without preconditions; null outside a KUnit test's thread.
    let test = unsafe { kernel::bindings::kunit_get_current_test() }.cast::<bindings::kunit>();
    if test.is_null() {
        return result.map_err(|_| ());
    }
    // SAFETY: `test` is the running test (KUnit's current test of this thread).
    if unsafe { record(test, name, result) } {
        Err(())
    } else {
        Ok(())
    }
}

/// A test case: a type standing for one test function (made by [`suite!`]).
#[cfg(not(sm4rs_kunit_tests))]
pub trait Case {
    /// The test's name, as KUnit prints it.
    const NAME: &'static str;
    /// Runs the test.
    fn run() -> TestResult;
}

/// `kunit_case::run_case` of `C`.
///
/// # Safety
///
/// Called by KUnit with the running test.
#[cfg(not(sm4rs_kunit_tests))]
pub unsafe extern "C" fn run_case<C: Case>(test: *mut bindings::kunit) {
    // SAFETY: `test` is the running test.
    unsafe { record(test, C::NAME, C::run()) };
}

/// A C object that KUnit writes to, placed in a `static`.
#[cfg(not(sm4rs_kunit_tests))]
#[repr(transparent)]
pub struct KunitCell<T>(core::cell::UnsafeCell<T>);

#[cfg(not(sm4rs_kunit_tests))]
impl<T> KunitCell<T> {
    /// Wraps `v`.
    pub const fn new(v: T) -> Self {
        Self(core::cell::UnsafeCell::new(v))
    }

    /// A raw pointer to the contents.
    pub const fn get(&self) -> *mut T {
        self.0.get()
    }
}

#[cfg(not(sm4rs_kunit_tests))]
// SAFETY: only KUnit accesses the contents, and it serialises the runs of a suite.
unsafe impl<T> Sync for KunitCell<T> {}

/// An entry of the `.kunit_test_suites` section: a pointer to a suite.
#[cfg(not(sm4rs_kunit_tests))]
#[repr(transparent)]
pub struct SuiteEntry(pub *mut bindings::kunit_suite);

#[cfg(not(sm4rs_kunit_tests))]
// SAFETY: the pointer is only read, by KUnit.
unsafe impl Sync for SuiteEntry {}

/// A `kunit_case` for `C`.
#[cfg(not(sm4rs_kunit_tests))]
pub const fn case<C: Case>(name: &'static core::ffi::CStr) -> bindings::kunit_case {
    // SAFETY: `kunit_case` is a C struct for which all-zero is valid (and is what C's
    // `KUNIT_CASE()` leaves in the fields it does not name).
    let mut c: bindings::kunit_case = unsafe { core::mem::zeroed() };
    c.run_case = Some(run_case::<C>);
    c.name = crate::crypto::c_str_ptr(name);
    c
}

/// The terminating, all-zero `kunit_case`.
#[cfg(not(sm4rs_kunit_tests))]
pub const fn case_end() -> bindings::kunit_case {
    // SAFETY: all-zero is the terminator KUnit looks for.
    unsafe { core::mem::zeroed() }
}

/// A `kunit_suite` named `name` running `cases` (terminated by [`case_end`]).
#[cfg(not(sm4rs_kunit_tests))]
pub const fn new_suite(
    name: &core::ffi::CStr,
    cases: *mut bindings::kunit_case,
) -> bindings::kunit_suite {
    // SAFETY: `kunit_suite` is a C struct for which all-zero is valid.
    let mut s: bindings::kunit_suite = unsafe { core::mem::zeroed() };
    s.name = crate::crypto::name_array(name);
    s.test_cases = cases;
    s
}

/// Fails the test case unless `cond` holds.
#[allow(unused_macros)]
macro_rules! check {
    ($cond:expr) => {
        if !$cond {
            return Err($crate::kunit::Failure {
                file: file!(),
                line: line!(),
                what: stringify!($cond),
                skip: false,
            });
        }
    };
}
#[allow(unused_imports)]
pub(crate) use check;

/// The failure of a test case at the caller's file and line, `$what` saying what failed
/// (for `return Err(fail!(...))` and `map_err`).
#[allow(unused_macros)]
macro_rules! fail {
    ($what:expr $(,)?) => {
        $crate::kunit::Failure {
            file: file!(),
            line: line!(),
            what: $what,
            skip: false,
        }
    };
}
#[allow(unused_imports)]
pub(crate) use fail;

/// Evaluates to the `Ok` value of `$result`, or fails the test case.
#[allow(unused_macros)]
macro_rules! check_ok {
    ($result:expr) => {
        match $result {
            Ok(v) => v,
            Err(_) => {
                return Err($crate::kunit::Failure {
                    file: file!(),
                    line: line!(),
                    what: concat!(stringify!($result), " is Ok"),
                    skip: false,
                })
            }
        }
    };
}
#[allow(unused_imports)]
pub(crate) use check_ok;

/// Fails the test case unless `left == right`, printing both.
#[allow(unused_macros)]
macro_rules! check_eq {
    ($left:expr, $right:expr) => {{
        let (l, r) = (&$left, &$right);
        if l != r {
            ::kernel::pr_err!("    # left:  {:02x?}\n    # right: {:02x?}\n", l, r);
            return Err($crate::kunit::Failure {
                file: file!(),
                line: line!(),
                what: concat!(stringify!($left), " == ", stringify!($right)),
                skip: false,
            });
        }
    }};
}
#[allow(unused_imports)]
pub(crate) use check_eq;

/// Skips the test case (as `kunit_skip()`) with `$reason` unless `$cond` holds.
#[allow(unused_macros)]
macro_rules! skip_unless {
    ($cond:expr, $reason:literal) => {
        if !$cond {
            return Err($crate::kunit::Failure {
                file: file!(),
                line: line!(),
                what: $reason,
                skip: true,
            });
        }
    };
}
#[allow(unused_imports)]
pub(crate) use skip_unless;

/// Declares a KUnit suite named `$suite` with the test functions `$test`
/// (each `fn() -> TestResult`), run when the module is loaded: through the kernel's
/// `#[kunit_tests]`, a module `$suite` of one `#[test]` function per case, each handing its
/// result to [`conclude`]. (`#[kunit_tests]` compiles its suites only with `CONFIG_KUNIT=y`.)
#[cfg(sm4rs_kunit_tests)]
#[allow(unused_macros)]
macro_rules! suite {
    ($suite:ident, [$($test:ident),+ $(,)?]) => {
        #[::kernel::macros::kunit_tests($suite)]
        mod $suite {
            $(
                #[test]
                fn $test() -> core::result::Result<(), ()> {
                    $crate::kunit::conclude(stringify!($test), super::$test())
                }
            )+
        }
    };
}

/// Declares a KUnit suite named `$suite` with the test functions `$test`
/// (each `fn() -> TestResult`), run when the module is loaded. The kernel has no Rust macro
/// for KUnit suites (`#[kunit_tests]` came in Linux 6.15): this one builds the
/// `struct kunit_case` array and the `struct kunit_suite` at compile time and places a pointer
/// to the suite in the module's `.kunit_test_suites` section, where KUnit finds it when the
/// module is loaded.
#[cfg(not(sm4rs_kunit_tests))]
#[allow(unused_macros)]
macro_rules! suite {
    ($suite:ident, [$($test:ident),+ $(,)?]) => {
        const _: () = {
            use $crate::bindings;
            use $crate::kunit;
            $(
                #[allow(non_camel_case_types)]
                struct $test {}
                impl kunit::Case for $test {
                    const NAME: &'static str = stringify!($test);
                    fn run() -> kunit::TestResult {
                        $test()
                    }
                }
            )+
            const NCASES: usize = [$(stringify!($test)),+].len() + 1;
            static CASES: kunit::KunitCell<[bindings::kunit_case; NCASES]> =
                kunit::KunitCell::new([
                    $(kunit::case::<$test>(
                        match core::ffi::CStr::from_bytes_with_nul(
                            concat!(stringify!($test), "\0").as_bytes()
                        ) {
                            Ok(n) => n,
                            Err(_) => panic!("test name"),
                        }
                    ),)+
                    kunit::case_end(),
                ]);
            static SUITE: kunit::KunitCell<bindings::kunit_suite> =
                kunit::KunitCell::new(kunit::new_suite(
                    match core::ffi::CStr::from_bytes_with_nul(
                        concat!(stringify!($suite), "\0").as_bytes()
                    ) {
                        Ok(n) => n,
                        Err(_) => panic!("suite name"),
                    },
                    CASES.get().cast(),
                ));
            #[used]
            #[link_section = ".kunit_test_suites"]
            static ENTRY: kunit::SuiteEntry = kunit::SuiteEntry(SUITE.get());
        };
    };
}
#[allow(unused_imports)]
pub(crate) use suite;

/// The test module, recorded by its `Module::init` (KUnit runs a module's suites once it is
/// live, and built-in suites after the initcalls).
static THIS_MODULE: core::sync::atomic::AtomicPtr<kernel::ThisModule> =
    core::sync::atomic::AtomicPtr::new(core::ptr::null_mut());

/// Records the test module for [`this_module`]; its `Module::init` calls this.
#[allow(dead_code)]
pub(crate) fn set_this_module(module: &'static kernel::ThisModule) {
    let p: *const kernel::ThisModule = module;
    THIS_MODULE.store(p.cast_mut(), core::sync::atomic::Ordering::Release);
}

/// The test module (for registrations a test makes), once its `Module::init` recorded it.
#[allow(dead_code)]
pub(crate) fn this_module() -> Result<&'static kernel::ThisModule, Failure> {
    let p = THIS_MODULE.load(core::sync::atomic::Ordering::Acquire);
    // SAFETY: `p` is null or was made from a `&'static ThisModule` by `set_this_module`.
    unsafe { p.cast_const().as_ref() }.ok_or(Failure {
        file: file!(),
        line: line!(),
        what: "the test module recorded itself in its init",
        skip: false,
    })
}
