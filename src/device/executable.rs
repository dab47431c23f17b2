//! A loaded Ventus ELF executable: the one path from ELF bytes to what a launch needs — the
//! predecoded code (with the host calls the emulator runs natively installed), the kernels with
//! their entries, argument metadata and resource records, the printf table and the
//! program-scope variables' image. The OpenCL runtime (`core`) and `ventus-run` load binaries
//! through [`Executable::load`], so both see the same program.
//!
//! Accepted: `ELFCLASS32`, `EM_RISCV`, `ET_EXEC`, entry and every `PT_LOAD` segment in the
//! program window at `0x8000_0000`; kernels are the symbols [`VentusElf::kernel_names`] finds;
//! argument metadata from the optional [`kernel_info::SECTION`] (official ELFs have none:
//! arguments are then accepted by size). Anything else is a [`LoadError`].

use super::memory::{Memory, MemoryError, Placement};
use crate::abi::elf::{ElfError, ResourceUsage, VentusElf};
use crate::abi::globals::{GlobalsError, GlobalsImage};
use crate::abi::kernel_info::{self, KernelInfo, KernelInfoError};
use crate::emulator::config::Config;
use crate::emulator::hostcall::HostCall;
use crate::emulator::program::ProgramError;
use std::sync::Arc;

/// One kernel of an executable.
#[derive(Debug, Clone)]
pub struct KernelDef {
    pub name: String,
    /// `KNL_ENTRY`: the address of the kernel symbol.
    pub entry: u32,
    /// Argument metadata from [`kernel_info::SECTION`], when the ELF carries it.
    pub info: Option<KernelInfo>,
    /// The `.ventus.resource.<kernel>` record, when present.
    pub resources: Option<ResourceUsage>,
    /// The entry of the kernel's single-item variant
    /// ([`kernel_info::single_item_symbol`]), when the ELF has one.
    pub single_item_entry: Option<u32>,
}

/// A loaded Ventus ELF: the bytes, the predecoded code and its kernels.
pub struct Executable {
    pub binary: Vec<u8>,
    /// The predecoded code (the emulated backend's form).
    code: crate::emulator::Program,
    /// The code for launches whose pointer arguments point into pairwise different memory
    /// objects: loads no store of their interval can reach by the ELF's memory classes
    /// ([`crate::abi::mem_class`]) run as private instructions too. `None` when no load
    /// gains (or the ELF has no table).
    disjoint_code: Option<crate::emulator::Program>,
    pub kernels: Vec<KernelDef>,
    /// printf call sites (`.ventus.printf`); `None` for binaries without printf support.
    pub printf: Option<Arc<crate::abi::printf::PrintfTable>>,
    /// Initial contents of the program-scope variables (`.ventus.globals`); `None` when the
    /// program has none (then its kernels take no hidden globals argument).
    pub globals: Option<GlobalsImage>,
}

/// Why bytes are not a usable Ventus executable (→ `CL_INVALID_BINARY`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum LoadError {
    Elf(ElfError),
    /// `e_entry` is not the program window base.
    Entry(u32),
    Program(ProgramError),
    KernelInfo(KernelInfoError),
    Printf(crate::abi::printf::PrintfError),
    Globals(GlobalsError),
}

impl std::fmt::Display for LoadError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            LoadError::Elf(e) => e.fmt(f),
            LoadError::Entry(a) => write!(f, "entry point {a:#010x} is not {:#010x}", crate::abi::PROGRAM_BASE),
            LoadError::Program(e) => e.fmt(f),
            LoadError::KernelInfo(e) => e.fmt(f),
            LoadError::Printf(e) => write!(f, "printf table: {e}"),
            LoadError::Globals(e) => e.fmt(f),
        }
    }
}
impl std::error::Error for LoadError {}

/// How [`Executable::load_with`] prepares the code.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct LoadOptions {
    /// Run the soft-double library's routines natively (`VENTUS_NATIVE_FP64`, default on).
    pub native_fp64: bool,
    /// Run the 2023 libclc printf of official binaries natively (`VENTUS_LEGACY_PRINTF`).
    pub legacy_printf: bool,
}

impl LoadOptions {
    /// The environment's settings.
    pub fn from_env() -> LoadOptions {
        let c = Config::get();
        LoadOptions { native_fp64: c.native_fp64, legacy_printf: c.legacy_printf }
    }
}

impl Executable {
    /// Parses and validates a Ventus ELF executable (see the module documentation), prepared as
    /// the environment says ([`LoadOptions::from_env`]).
    pub fn load(bytes: &[u8]) -> Result<Executable, LoadError> {
        Executable::load_with(bytes, LoadOptions::from_env())
    }

    /// As [`Executable::load`], prepared as `opts` says.
    pub fn load_with(bytes: &[u8], opts: LoadOptions) -> Result<Executable, LoadError> {
        let elf = VentusElf::parse(bytes).map_err(LoadError::Elf)?;
        if elf.entry != crate::abi::PROGRAM_BASE {
            return Err(LoadError::Entry(elf.entry));
        }
        let mut code = crate::emulator::Program::from_elf(&elf).map_err(LoadError::Program)?;
        // Loads of barrier intervals without stores run like private instructions; crt0 calls
        // a kernel's entry or its one-item variant's.
        let entries: Vec<u32> = elf
            .kernel_names()
            .iter()
            .flat_map(|k| [elf.kernel_entry(k), elf.kernel_entry(&kernel_info::single_item_symbol(k))])
            .flatten()
            .collect();
        let classes = match elf.sections.iter().find(|(n, _, _)| n == crate::abi::mem_class::SECTION) {
            Some((_, _, data)) => crate::abi::mem_class::decode(data).unwrap_or_else(|e| {
                log::warn!("ignoring the ELF's memory classes: {e}");
                Vec::new()
            }),
            None => Vec::new(),
        };
        let mut disjoint_code =
            crate::emulator::intervals::privatize_interval_loads(&mut code, elf.entry, &entries, &classes);
        // The 2023 libclc printf cannot run on the device; the emulator runs it natively.
        let legacy_printf = crate::abi::printf::legacy::detect(&elf).filter(|_| opts.legacy_printf);
        for code in std::iter::once(&mut code).chain(disjoint_code.as_mut()) {
            if let Some(pc) = legacy_printf {
                code.install_host_call(pc, HostCall::LegacyPrintf);
            }
            if opts.native_fp64 {
                crate::emulator::hostcall::install_native_fp64(&elf, code);
            }
            // The memory checker's reports of image accesses outside their image.
            crate::emulator::hostcall::install_checks(&elf, code);
        }
        let infos = match elf.sections.iter().find(|(n, _, _)| n == kernel_info::SECTION) {
            Some((_, _, data)) => kernel_info::decode(data).map_err(LoadError::KernelInfo)?,
            None => Vec::new(),
        };
        let kernels = elf
            .kernel_names()
            .into_iter()
            .filter_map(|name| {
                let entry = elf.kernel_entry(&name)?;
                let info = infos.iter().find(|k| k.name == name).cloned();
                let resources = elf.resource_usage(&name).copied();
                let single_item_entry = elf.kernel_entry(&kernel_info::single_item_symbol(&name));
                Some(KernelDef { name, entry, info, resources, single_item_entry })
            })
            .collect();
        let printf = match elf.sections.iter().find(|(n, _, _)| n == crate::abi::printf::PRINTF_SECTION) {
            Some((_, _, data)) => {
                Some(Arc::new(crate::abi::printf::PrintfTable::decode(data).map_err(LoadError::Printf)?))
            }
            None => None,
        };
        let globals = GlobalsImage::from_elf(&elf).map_err(LoadError::Globals)?.filter(|g| g.size > 0);
        Ok(Executable { binary: bytes.to_vec(), code, disjoint_code, kernels, printf, globals })
    }

    /// The predecoded code (for the device layer's backend).
    pub(in crate::device) fn code(&self) -> &crate::emulator::Program {
        &self.code
    }

    /// The code for launches whose pointer arguments point into pairwise different memory
    /// objects, when it differs from [`Self::code`].
    pub(in crate::device) fn disjoint_code(&self) -> Option<&crate::emulator::Program> {
        self.disjoint_code.as_ref()
    }

    /// Allocates the program-scope variables' block ([`crate::abi::globals`]) in `mem` and
    /// writes its initial contents: its address, the kernels' hidden last argument; `None`
    /// when the program has none. The caller owns the block ([`Memory::free`]).
    pub fn stage_globals(&self, mem: &Memory) -> Result<Option<u32>, MemoryError> {
        let Some(image) = &self.globals else { return Ok(None) };
        let b = mem.alloc(image.size.max(4), Placement::Plain)?;
        b.write(b.base(), &image.contents(b.base()));
        Ok(Some(b.base()))
    }

    /// The kernel called `name`, by definition.
    pub fn kernel_def(&self, name: &str) -> Option<&KernelDef> {
        self.kernels.iter().find(|k| k.name == name)
    }

    /// The kernel called `name`.
    pub fn kernel(&self, name: &str) -> Option<usize> {
        self.kernels.iter().position(|k| k.name == name)
    }

    /// `CL_PROGRAM_KERNEL_NAMES`: semicolon-separated, in address order.
    pub fn kernel_names(&self) -> String {
        self.kernels.iter().map(|k| k.name.as_str()).collect::<Vec<_>>().join(";")
    }
}
