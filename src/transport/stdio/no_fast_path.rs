//! The fast path's type in a build without the store (the gateway alone):
//! there is no [`Service`](crate::service) to answer a call, so no value of
//! this type can exist and `Stdio::fast` is always `None`. Every method is
//! the match on an empty enum, so the transport's code reads the same in
//! both builds and none of it can run here.

use std::sync::Arc;
use std::sync::atomic::{AtomicU64, AtomicUsize};

use rmcp::model::{ClientRequest, JsonRpcRequest, RequestId};
use tokio::sync::Notify;

use super::out::Out;

/// Uninhabited: see the module's documentation.
pub enum FastPath {}

impl FastPath {
    pub fn calls(&self) -> Arc<AtomicU64> {
        match *self {}
    }

    pub fn settle(&mut self) {
        match *self {}
    }

    pub fn takes(&self, _: &JsonRpcRequest<ClientRequest>) -> bool {
        match *self {}
    }

    pub fn spawn(&mut self, _: JsonRpcRequest<ClientRequest>, _: &Out, _: &Arc<AtomicUsize>, _: &Arc<Notify>) {
        match *self {}
    }

    pub fn answered(&mut self) -> Vec<RequestId> {
        match *self {}
    }

    pub fn cancel(&mut self, _: &RequestId) -> bool {
        match *self {}
    }

    pub async fn close(&mut self) {
        match *self {}
    }
}
