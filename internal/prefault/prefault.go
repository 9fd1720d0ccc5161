// Package prefault maps fresh memory in before its first use: one system
// call for a whole buffer instead of one page fault for each of its pages.
//
// A page fault is cheap on bare metal, but on a virtual machine each one can
// cost several microseconds of the hypervisor's time, and a build's record
// buffers (a gigabyte at the default memory limit) are hundreds of thousands
// of fresh pages. (The mapped CSV is prefaulted by mapping.Map.Populate.)
//
// Write is a hint: where the system cannot do it (not Linux, or a kernel
// before 5.14), it does nothing, and the pages fault in as they are
// touched. It never changes the memory's contents.
package prefault
