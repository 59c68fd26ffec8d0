#include "device/comm_device.h"

#include "core/log.h"

namespace weft::device {

CommDevice::~CommDevice() {
  // Streams drain before they go; failures here are logged, not fatal (the comm is going).
  if (d2h_ != nullptr && backend_->StreamDestroy(d2h_) != weftSuccess)
    WEFT_WARN(kDevice, "destroying the staging stream failed");
  if (h2d_ != nullptr && backend_->StreamDestroy(h2d_) != weftSuccess)
    WEFT_WARN(kDevice, "destroying the staging stream failed");
  if (ipc_mappings.CloseAll(*backend_) != weftSuccess)
    WEFT_WARN(kDevice, "closing a peer's IPC mapping failed");
  for (Event e : events_) {
    if (backend_->EventDestroy(e) != weftSuccess) WEFT_WARN(kDevice, "destroying an event failed");
  }
}

Status CommDevice::Pipeline(int n, Stream* d2h, Stream* h2d, Event** events) {
  if (d2h_ == nullptr) WEFT_CHECK(backend_->StreamCreate(&d2h_));
  if (h2d_ == nullptr) WEFT_CHECK(backend_->StreamCreate(&h2d_));
  while (static_cast<int>(events_.size()) < n) {
    Event e = nullptr;
    WEFT_CHECK(backend_->EventCreate(&e));
    events_.push_back(e);
  }
  *d2h = d2h_;
  *h2d = h2d_;
  *events = events_.data();
  return weftSuccess;
}

}  // namespace weft::device
