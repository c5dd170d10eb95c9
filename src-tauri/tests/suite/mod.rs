mod e2e;
mod e2e_agent;
mod e2e_creator;
mod e2e_shell;
mod e2e_watch;
mod notify;
mod signals;
mod window;
