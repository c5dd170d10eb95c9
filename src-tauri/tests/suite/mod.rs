mod e2e;
mod e2e_agent;
mod e2e_shell;
mod notify;
mod signals;
mod window;
