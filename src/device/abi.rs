//! The kernel-argument ABI between the host and a PTX module: the parameter list each `.entry`
//! declares, parsed from the PTX text, and the list weft's launchers push.
//!
//! A launch hands the driver one pointer per parameter; the driver copies as many bytes as the
//! *kernel* declares from each. A functor whose host size differs from the PTX parameter would
//! make the driver read past the host value (or the kernel read bytes the host never wrote), so
//! every launch compares the two lists first ([`check_params`]): a module built from other
//! sources, or a functor struct changed since its PTX was built, is an error, never a launch.
//!
//! Parsed forms (what rustc's NVPTX backend writes; anything else is an error, not a guess):
//! `.param .u64 name`, `.param .f32 name` (any `.b/.u/.s/.f` 8 to 64 bits), `.param .u64 .ptr
//! [.global] .align N name` (a pointer: 8 bytes, the `.align` is the pointee's), `.param .align N
//! .b8 name[SIZE]` (a by-value aggregate).

use crate::device::layout::StridedLayout;
use std::format;
use std::string::{String, ToString};
use std::vec::Vec;

/// One kernel parameter: its size and alignment in bytes.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub struct Param {
    pub size: usize,
    pub align: usize,
}

impl Param {
    /// The parameter a host value of type `T` fills (its bytes are copied).
    pub const fn of<T>() -> Param {
        Param {
            size: size_of::<T>(),
            align: align_of::<T>(),
        }
    }
}

impl core::fmt::Display for Param {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        write!(f, "{}B/align {}", self.size, self.align)
    }
}

/// Every `.entry` of `ptx` (`.entry`, `.visible .entry`, `.weak .entry`) with its declared
/// parameters, in order. Errors on a parameter declaration it cannot size (see the module docs).
pub fn ptx_entry_params(ptx: &str) -> Result<Vec<(String, Vec<Param>)>, String> {
    let mut out = Vec::new();
    let mut lines = ptx.lines();
    while let Some(line) = lines.next() {
        let t = line.trim_start();
        let t = t
            .strip_prefix(".visible ")
            .or_else(|| t.strip_prefix(".weak "))
            .unwrap_or(t)
            .trim_start();
        let Some(rest) = t.strip_prefix(".entry ") else {
            continue;
        };
        let rest = rest.trim_start();
        let name_end = rest
            .find(|c: char| c == '(' || c.is_whitespace())
            .unwrap_or(rest.len());
        let name = &rest[..name_end];
        if name.is_empty() {
            return Err(format!("line `{line}`: an .entry without a name"));
        }
        // The parameter group: from `(` (on this line or the next) to the matching `)`,
        // possibly over several lines; an entry without one takes no parameters.
        let mut text = String::from(strip_comment(&rest[name_end..]));
        if text.trim().is_empty()
            && let Some(l) = lines.next()
        {
            text = String::from(strip_comment(l));
        }
        let params = if let Some(group) = text.trim_start().strip_prefix('(') {
            let mut group = String::from(group);
            while !group.contains(')') {
                let Some(l) = lines.next() else {
                    return Err(format!("entry {name}: unterminated parameter list"));
                };
                group.push_str(strip_comment(l));
                group.push('\n');
            }
            let group = &group[..group.find(')').unwrap_or(group.len())];
            group
                .split(',')
                .map(str::trim)
                .filter(|p| !p.is_empty())
                .map(|p| parse_param(p).map_err(|e| format!("entry {name}: `{p}`: {e}")))
                .collect::<Result<Vec<_>, _>>()?
        } else {
            Vec::new()
        };
        out.push((name.to_string(), params));
    }
    Ok(out)
}

fn strip_comment(l: &str) -> &str {
    l.split_once("//").map_or(l, |(a, _)| a)
}

/// One `.param ...` declaration (without the separating comma).
fn parse_param(decl: &str) -> Result<Param, String> {
    let mut toks = decl.split_whitespace();
    if toks.next() != Some(".param") {
        return Err("not a .param".to_string());
    }
    let (mut elem, mut align, mut ptr, mut name) = (None, None, false, None);
    while let Some(tok) = toks.next() {
        match tok {
            ".align" => {
                let n = toks.next().ok_or(".align without a value")?;
                align = Some(n.parse::<usize>().map_err(|_| "bad .align value")?);
            }
            ".ptr" => ptr = true,
            ".global" | ".const" | ".shared" | ".local" => {}
            t if t.starts_with('.') => {
                let bits = t[2..].parse::<usize>().ok().filter(|_| {
                    matches!(&t[..2], ".b" | ".u" | ".s" | ".f")
                        && matches!(&t[2..], "8" | "16" | "32" | "64")
                });
                match bits {
                    Some(b) if elem.is_none() => elem = Some(b / 8),
                    _ => return Err(format!("unknown token {t}")),
                }
            }
            t if name.is_none() => name = Some(t),
            t => return Err(format!("unexpected token {t}")),
        }
    }
    let elem = elem.ok_or("no type")?;
    let name = name.ok_or("no name")?;
    let count = match name.split_once('[') {
        None => 1,
        Some((_, n)) => n
            .strip_suffix(']')
            .and_then(|n| n.parse::<usize>().ok())
            .ok_or("bad array size")?,
    };
    if ptr {
        if elem != 8 || count != 1 {
            return Err("a .ptr that is not one .u64".to_string());
        }
        // `.ptr .align N` is the pointee's alignment, not the parameter's.
        return Ok(Param { size: 8, align: 8 });
    }
    Ok(Param {
        size: elem * count,
        align: align.unwrap_or(elem),
    })
}

/// The parameters weft's launchers push for kernel variant `variant` (`"c"`: `numel: u64`, `"s"`:
/// [`StridedLayout`]), then the functor value unless zero-sized, then `pointers` device pointers
/// (the output and each input).
pub fn launch_params(variant: &str, functor: Param, pointers: usize) -> Vec<Param> {
    let first = if variant == "c" {
        Param::of::<u64>()
    } else {
        Param::of::<StridedLayout>()
    };
    let mut v = Vec::with_capacity(pointers + 2);
    v.push(first);
    if functor.size != 0 {
        v.push(functor);
    }
    v.extend(core::iter::repeat_n(Param::of::<u64>(), pointers));
    v
}

/// `Ok` when kernel `name` declares exactly the parameters a launch pushes (same count, and each
/// of the same size and alignment); else the error text, naming both lists.
pub fn check_params(name: &str, declared: &[Param], pushed: &[Param]) -> Result<(), String> {
    if declared == pushed {
        return Ok(());
    }
    let list = |ps: &[Param]| {
        ps.iter()
            .map(|p| p.to_string())
            .collect::<Vec<_>>()
            .join(", ")
    };
    Err(format!(
        "kernel {name} declares parameters ({}) but the launch passes ({}): the PTX was built \
         from other sources or for another functor type (rebuild it; a functor passed to a \
         kernel must be #[repr(C)] plain data)",
        list(declared),
        list(pushed)
    ))
}
