//! The arguments of a case's launches against the parameters its modules declare: each module's
//! parameter lists, read from the PTX the compile kept ([`module_params`]), and the check of a
//! launch's arguments against them ([`check_arguments`]) that [`super::compile_from`] runs before
//! any launch, as the compile trials run it without a GPU.

#![deny(unsafe_code)]

use crate::case::{Arg, Case};
use crate::{
    error::{Error, Result},
    source::Kernel,
};

/// The parameters of each entry of a loaded module, by the name the case launches it by (a
/// template instance's name expression); `None` for a binary module (cubin or fatbin), which has
/// no PTX to read them from.
pub(super) type ModuleParams = Option<std::collections::BTreeMap<String, Vec<crate::compile::PtxParam>>>;

/// The parameters of the module `function_of` loaded for `kernel` from the text `source` of its
/// file (`shown`) with `options` and the header folders of the project at `root`
/// ([`crate::compile::entry_params`]), from the PTX [`crate::compile::module_ptx`] keeps (the
/// compile that made the module, not another one).
///
/// # Errors
/// [`crate::compile::module_ptx`]'s, which the load just before did not meet.
pub(super) fn module_params(
    arch: &str,
    kernel: &Kernel,
    shown: &str,
    source: &str,
    options: &[&str],
    root: Option<&std::path::Path>,
) -> Result<ModuleParams> {
    if crate::kernel_file::is_binary(kernel.file) {
        return Ok(None);
    }
    let instances: &[&str] =
        if crate::source::is_name_expression(kernel.entry) { std::slice::from_ref(&kernel.entry) } else { &[] };
    let made = crate::compile::module_ptx(kernel.file, shown, source, arch, instances, options, root)?;
    let mut params = crate::compile::entry_params(&made.ptx.to_src());
    // The instance by its name expression, as the case launches it.
    if let Some(lowered) = made.lowered.first()
        && let Some(list) = params.remove(lowered)
    {
        params.insert(kernel.entry.to_string(), list);
    }
    Ok(Some(params))
}

/// Checks the arguments `args` of `case`'s launch of `kernel` against the parameters its module
/// declares (`params`, [`module_params`]) as the compile trials do without a GPU: their count,
/// then each argument's size and kind ([`crate::compile::mismatch`]), so that a mistyped scalar (a
/// `Param::F32` for an `int n`) fails before any launch, named, instead of as a wrong result. A
/// binary module, or an entry whose declarations do not read, is not checked.
///
/// # Errors
/// [`Error::Kernels`] naming the file `shown`, the case, the kernel's parameter, what was passed
/// and the fix.
pub(super) fn check_arguments(
    case: &Case,
    kernel: &Kernel,
    args: &[Arg],
    shown: &str,
    params: &ModuleParams,
) -> Result<()> {
    let Some(declared) = params.as_ref().and_then(|p| p.get(kernel.entry)) else { return Ok(()) };
    let message = if declared.len() != args.len() {
        format!(
            "{}: launches {} with {} argument(s), but its PTX declares {} parameter(s); list one Arg (or, in \
             Case::new, one Param) per kernel parameter, in order",
            case.name(),
            kernel.name(),
            args.len(),
            declared.len()
        )
    } else {
        let passed = crate::resources::passed(args, &case.params);
        match crate::compile::mismatch(declared, &passed) {
            Some(wrong) => wrong.message(&case.name(), kernel.name()),
            None => return Ok(()),
        }
    };
    Err(Error::Kernels { path: shown.into(), message })
}
