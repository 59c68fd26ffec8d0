#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
int main(int argc,char**argv){MPI_Init(&argc,&argv);int r;MPI_Comm_rank(MPI_COMM_WORLD,&r);int peer=1-r;
int sizes[]={512,1024,1536,2048,3072,4096,6144,8192,8256,12288,16384,32768};char*a=malloc(65536),*b=malloc(65536);
for(int s=0;s<12;s++){int n=sizes[s];double best=1e9;for(int rep=0;rep<5;rep++){MPI_Barrier(MPI_COMM_WORLD);double t0=MPI_Wtime();int it=2000;
for(int i=0;i<it;i++){if(r==0){MPI_Send(a,n,MPI_BYTE,peer,1,MPI_COMM_WORLD);MPI_Recv(b,n,MPI_BYTE,peer,1,MPI_COMM_WORLD,MPI_STATUS_IGNORE);}else{MPI_Recv(b,n,MPI_BYTE,peer,1,MPI_COMM_WORLD,MPI_STATUS_IGNORE);MPI_Send(a,n,MPI_BYTE,peer,1,MPI_COMM_WORLD);}}
double t=(MPI_Wtime()-t0)*1e6/it/2;if(t<best)best=t;}
if(r==0)printf("%6d %.3f\n",n,best);}
MPI_Finalize();}
