{
  "targets": [
    {
      "target_name": "mx_cuda",
      "sources": ["addon.cc", "rtc_blas.cc", "loader.cc"],
      "include_dirs": ["<!(node -p \"require('node-addon-api').include_dir\")"],
      "defines": ["NAPI_VERSION=8", "NODE_ADDON_API_DISABLE_DEPRECATED"],
      "cflags_cc!": ["-fno-exceptions", "-fno-rtti", "-std=gnu++17"],
      "cflags_cc": ["-std=c++17", "-fexceptions", "-Wall", "-Wextra", "-Werror", "-O2"],
      "libraries": ["-ldl"]
    }
  ]
}
