// Keys that let one kernel's name, as different tools print it, be compared: Kineto/CUPTI and
// Nsight Systems print "void at::native::vectorized_elementwise_kernel<4, at::native::FillFunctor<float>,
// at::detail::Array<char*, 2> >(int, ...)", Nsight Compute (2023+) drops the namespaces and older
// versions print casts ("<(int)4, ...>"). The keys drop what differs: namespace and class
// qualifiers, casts in template arguments, integer suffixes (3ul), the parameter list, the
// return type "void" and spaces that separate no two words.
#pragma once

#include <string>
#include <string_view>

namespace ampscope {

// The name without qualifiers, casts, suffixes, parameters and insignificant spaces.
std::string KernelJoinKey(std::string_view name);
// The function's own identifier in a join key: "vectorized_elementwise_kernel", "Kernel2".
std::string KernelBaseName(std::string_view join_key);

}  // namespace ampscope
